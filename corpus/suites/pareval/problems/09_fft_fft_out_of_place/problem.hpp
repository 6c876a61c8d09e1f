// 09_fft_fft_out_of_place: FFT of x stored in output.
#pragma once

struct PfInput {
  std::vector<std::complex<double>> x;
};

struct PfOutput {
  std::vector<std::complex<double>> output;
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
  PfOutput out{std::vector<std::complex<double>>(in.x.size())};
  pf::timed([&] { fft(in.x, out.output); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  std::vector<cuDoubleComplex> host(n), result(n, make_cuDoubleComplex(0.0, 0.0));
  for (std::size_t k = 0; k < n; ++k) host[k] = make_cuDoubleComplex(in.x[k].real(), in.x[k].imag());
  cuDoubleComplex *x = pf::to_device(host), *output = pf::to_device(result);
  pf::timed_kernel([&] { fft<<<pf::blocks(n, 256), 256>>>(x, output, n); });
  pf::to_host(result, output);
  pf::release(x);
  pf::release(output);
  PfOutput out{std::vector<std::complex<double>>(n)};
  for (std::size_t k = 0; k < n; ++k) out.output[k] = {cuCreal(result[k]), cuCimag(result[k])};
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
