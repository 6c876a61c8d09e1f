#include <omp.h>

/* Return the value of the smallest odd number in the vector x.
   Use OpenMP to compute in parallel.
   Examples:

   input: [7, 9, 5, 2, 8, 16, 4, 1]
   output: 1

   input: [8, 36, 7, 2, 11]
   output: 7
*/
int smallestOdd(std::vector<int> const& x) {
  int smallest = std::numeric_limits<int>::max();
  #pragma omp parallel for reduction(min:smallest)
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] % 2 != 0 && x[i] < smallest) {
      smallest = x[i];
    }
  }
  return smallest;
}
