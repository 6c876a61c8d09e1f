/* Compute the fourier transform of x in-place. Return the imaginary conjugate of each value.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{4,0}, {1,-2.41421}, {0,0}, {1,-0.414214}, {0,0}, {1,0.414214}, {0,0}, {1,2.41421}]
*/
void fftConjugate(std::vector<std::complex<double>> &x) {
  // Iterative radix-2 Cooley-Tukey: bit-reversal permutation, then log2(n) butterfly stages.
  const size_t n = x.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t start = 0; start < n; start += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
        std::complex<double> u = x[start + k], t = w * x[start + k + len / 2];
        x[start + k] = u + t;
        x[start + k + len / 2] = u - t;
      }
    }
  }
  for (auto &v : x) v = std::conj(v);
}
