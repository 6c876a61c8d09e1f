#include <omp.h>

/* Replace every element of the vector x with 1-1/x.
   Use OpenMP to compute in parallel.
   Example:

   input: [2, 4, 1, 12, -2]
   output: [0.5, 0.75, 0, 0.91666666, 1.5]
*/
void oneMinusInverse(std::vector<double> &x) {
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = 1.0 - 1.0 / x[i];
  }
}
