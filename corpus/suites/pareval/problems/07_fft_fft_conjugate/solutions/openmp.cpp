#include <omp.h>

/* Compute the fourier transform of x in-place. Return the imaginary conjugate of each value.
   Use OpenMP to compute in parallel.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{4,0}, {1,-2.41421}, {0,0}, {1,-0.414214}, {0,0}, {1,0.414214}, {0,0}, {1,2.41421}]
*/
void fftConjugate(std::vector<std::complex<double>> &x) {
  const long n = x.size();
  int bits = 0;
  while ((1L << bits) < n) bits++;
  #pragma omp parallel
  {
    // Bit-reversal permutation: only the smaller index of each pair swaps, so no conflicts.
    #pragma omp for
    for (long i = 0; i < n; ++i) {
      long j = 0;
      for (int b = 0; b < bits; ++b) j |= ((i >> b) & 1) << (bits - 1 - b);
      if (i < j) std::swap(x[i], x[j]);
    }
    // One stage at a time; the implicit barrier of each `omp for` separates the stages.
    for (long len = 2; len <= n; len <<= 1) {
      const long half = len / 2;
      #pragma omp for
      for (long t = 0; t < n / 2; ++t) {
        long start = (t / half) * len, k = t % half;
        std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
        std::complex<double> u = x[start + k], v = w * x[start + k + half];
        x[start + k] = u + v;
        x[start + k + half] = u - v;
      }
    }
    #pragma omp for
    for (long i = 0; i < n; ++i) x[i] = std::conj(x[i]);
  }
}
