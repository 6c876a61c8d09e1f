#include <omp.h>

/* Compute the fourier transform of x. Store real part of results in r and imaginary in i.
   Use OpenMP to compute in parallel.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: r: [4, 1, 0, 1, 0, 1, 0, 1] i: [0, -2.41421, 0, -0.414214, 0, 0.414214, 0, 2.41421]
*/
void fft(std::vector<std::complex<double>> const& x, std::vector<double> &r, std::vector<double> &i) {
  const long n = x.size();
  int bits = 0;
  while ((1L << bits) < n) bits++;
  std::vector<std::complex<double>> a(n);
  #pragma omp parallel
  {
    // Bit-reversed copy of x, then in-place butterfly stages on the copy.
    #pragma omp for
    for (long k = 0; k < n; ++k) {
      long j = 0;
      for (int b = 0; b < bits; ++b) j |= ((k >> b) & 1) << (bits - 1 - b);
      a[j] = x[k];
    }
    for (long len = 2; len <= n; len <<= 1) {
      const long half = len / 2;
      #pragma omp for
      for (long t = 0; t < n / 2; ++t) {
        long start = (t / half) * len, k = t % half;
        std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
        std::complex<double> u = a[start + k], v = w * a[start + k + half];
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
    #pragma omp for
    for (long k = 0; k < n; ++k) {
      r[k] = a[k].real();
      i[k] = a[k].imag();
    }
  }
}
