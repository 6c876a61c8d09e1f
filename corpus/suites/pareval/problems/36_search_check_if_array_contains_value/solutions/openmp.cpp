#include <omp.h>

/* Return true if the vector x contains the value `target`. Return false otherwise.
   Use OpenMP to search in parallel.
   Examples:

   input: x=[1, 8, 2, 6, 4, 6], target=3
   output: false
   
   input: x=[1, 8, 2, 6, 4, 6], target=8
   output: true
*/
bool contains(std::vector<int> const& x, int target) {
  bool found = false;
  #pragma omp parallel for reduction(||:found)
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == target) {
      found = true;
    }
  }
  return found;
}
