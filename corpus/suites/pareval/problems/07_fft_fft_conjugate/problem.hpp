// 07_fft_fft_conjugate: in-place FFT followed by the complex conjugate of every value.
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
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { fftConjugate(out.x); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  std::vector<cuDoubleComplex> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = make_cuDoubleComplex(in.x[i].real(), in.x[i].imag());
  cuDoubleComplex *x = pf::to_device(host);
  pf::timed_kernel([&] { fftConjugate<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(host, x);
  pf::release(x);
  PfOutput out{std::vector<std::complex<double>>(n)};
  for (std::size_t i = 0; i < n; ++i) out.x[i] = {cuCreal(host[i]), cuCimag(host[i])};
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
