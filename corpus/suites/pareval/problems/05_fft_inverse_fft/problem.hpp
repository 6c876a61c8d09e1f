// 05_fft_inverse_fft: in-place inverse FFT; the harness provides the forward `fft` the prompt
// declares.
#pragma once

struct PfInput {
  std::vector<std::complex<double>> x;
};

struct PfOutput {
  std::vector<std::complex<double>> x;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  if (n == 0 || (n & (n - 1)) != 0) {
    std::fprintf(stderr, "SIZE must be a power of two, not %zu\n", n);
    std::exit(2);
  }
  PfInput in{std::vector<std::complex<double>>(n)};
  for (auto &v : in.x) v = {rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)};
  return in;
}

#ifndef __CUDACC__
// The forward transform the prompt declares: iterative radix-2, X_k = sum_j x_j e^{-2 pi i jk/n}.
void fft(std::vector<std::complex<double>> &x) {
  std::size_t n = x.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    double angle = -2.0 * M_PI / static_cast<double>(len);
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t k = 0; k < len / 2; ++k) {
        std::complex<double> w = std::polar(1.0, angle * static_cast<double>(k));
        std::complex<double> u = x[start + k], t = w * x[start + k + len / 2];
        x[start + k] = u + t;
        x[start + k + len / 2] = u - t;
      }
    }
  }
}

inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { ifft(out.x); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  std::vector<cuDoubleComplex> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = make_cuDoubleComplex(in.x[i].real(), in.x[i].imag());
  cuDoubleComplex *x = pf::to_device(host);
  pf::timed_kernel([&] { ifft<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(host, x);
  pf::release(x);
  PfOutput out{std::vector<std::complex<double>>(n)};
  for (std::size_t i = 0; i < n; ++i) out.x[i] = {cuCreal(host[i]), cuCimag(host[i])};
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
