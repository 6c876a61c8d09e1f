#include <omp.h>

/* Compute the discrete fourier transform of x. Store the result in output.
   Use OpenMP to compute in parallel.
   Example:

   input: [1, 4, 9, 16]
   output: [30+0i, -8-12i, -10-0i, -8+12i]
*/
void dft(std::vector<double> const& x, std::vector<std::complex<double>> &output) {
  const long n = x.size();
  output.resize(n);
  #pragma omp parallel for schedule(static)
  for (long k = 0; k < n; ++k) {
    std::complex<double> sum = 0.0;
    for (long j = 0; j < n; ++j) {
      // (j * k) mod n keeps the angle small and exact.
      double angle = -2.0 * M_PI * (double)((j * k) % n) / (double)n;
      sum += x[j] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    output[k] = sum;
  }
}
