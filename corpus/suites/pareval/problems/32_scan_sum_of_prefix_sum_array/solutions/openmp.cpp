#include <omp.h>

/* Compute the prefix sum array of the vector x and return its sum.
   Use OpenMP to compute in parallel.
   Example:

   input: [-7, 2, 1, 9, 4, 8]
   output: 15
*/
double sumOfPrefixSum(std::vector<double> const& x) {
  // x[i] is part of the prefix sums i, i+1, ..., n-1: it counts n - i times.
  size_t n = x.size();
  double sum = 0.0;
  #pragma omp parallel for reduction(+:sum)
  for (size_t i = 0; i < n; ++i) {
    sum += x[i] * static_cast<double>(n - i);
  }
  return sum;
}
