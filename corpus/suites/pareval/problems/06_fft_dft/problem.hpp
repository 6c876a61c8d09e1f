// 06_fft_dft: discrete Fourier transform of a real signal, X_k = sum_j x_j e^{-2 pi i jk/N}.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::vector<std::complex<double>> output;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<double>(n)};
  for (auto &v : in.x) v = rng.uniform(-1.0, 1.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<std::complex<double>>(in.x.size())};
  pf::timed([&] { dft(in.x, out.output); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  std::vector<cuDoubleComplex> host(n, make_cuDoubleComplex(0.0, 0.0));
  double *x = pf::to_device(in.x);
  cuDoubleComplex *output = pf::to_device(host);
  pf::timed_kernel([&] { dft<<<pf::blocks(n, 256), 256>>>(x, output, n); });
  pf::to_host(host, output);
  pf::release(x);
  pf::release(output);
  PfOutput out{std::vector<std::complex<double>>(n)};
  for (std::size_t k = 0; k < n; ++k) out.output[k] = {cuCreal(host[k]), cuCimag(host[k])};
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
