#include <omp.h>

/* Compute the fourier transform of x. Store the result in output.
   Use OpenMP to compute in parallel.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{4,0}, {1,-2.42421}, {0,0}, {1,-0.414214}, {0,0}, {1,0.414214}, {0,0}, {1,2.41421}]
*/
void fft(std::vector<std::complex<double>> const& x, std::vector<std::complex<double>> &output) {
  const long n = x.size();
  output.resize(n);
  int bits = 0;
  while ((1L << bits) < n) bits++;
  // Bit-reversed copy into output, then in-place butterfly stages, one parallel loop each.
  #pragma omp parallel for
  for (long k = 0; k < n; ++k) {
    long j = 0;
    for (int b = 0; b < bits; ++b) j |= ((k >> b) & 1) << (bits - 1 - b);
    output[j] = x[k];
  }
  for (int s = 1; s <= bits; ++s) {
    const long len = 1L << s, half = len / 2;
    #pragma omp parallel for
    for (long t = 0; t < n / 2; ++t) {
      long start = (t / half) * len, k = t % half;
      std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
      std::complex<double> u = output[start + k], v = w * output[start + k + half];
      output[start + k] = u + v;
      output[start + k + half] = u - v;
    }
  }
}
