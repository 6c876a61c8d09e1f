#include <omp.h>

/* Compute one iteration of a 3-point 1D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its two neighbors and stored in the corresponding element of `output`.
   i.e. output[i] = (input[i-1]+input[i]+input[i+1])/3
   Replace with 0 when reading past the boundaries of `input`.
   Use OpenMP to compute in parallel.
   Example:

   input: [9, -6, -1, 2, 3]
   output: [1, 2/3, -5/3, 4/3, 5/3]
*/
void jacobi1D(std::vector<double> const& input, std::vector<double> &output) {
  long n = input.size();
  #pragma omp parallel for
  for (long i = 0; i < n; ++i) {
    double sum = input[i];
    if (i > 0) sum += input[i - 1];
    if (i + 1 < n) sum += input[i + 1];
    output[i] = sum / 3;
  }
}
