#include <omp.h>

/* Replace every element of x with the square of its value.
   Use OpenMP to compute in parallel.
   Example:

   input: [5, 1, 2, -4, 8]
   output: [25, 1, 4, 16, 64]
*/
void squareEach(std::vector<int> &x) {
  #pragma omp parallel for
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = x[i] * x[i];
  }
}
