// 08_fft_split_fft: FFT of x with the real parts stored in r and the imaginary parts in i.
#pragma once

struct PfInput {
  std::vector<std::complex<double>> x;
};

struct PfOutput {
  std::vector<double> r, i;
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
  PfOutput out{std::vector<double>(in.x.size(), 0.0), std::vector<double>(in.x.size(), 0.0)};
  pf::timed([&] { fft(in.x, out.r, out.i); });
  return out;
}
#else
// "The kernel is launched with at least N threads."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  std::vector<cuDoubleComplex> host(n);
  for (std::size_t k = 0; k < n; ++k) host[k] = make_cuDoubleComplex(in.x[k].real(), in.x[k].imag());
  PfOutput out{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  cuDoubleComplex *x = pf::to_device(host);
  double *r = pf::to_device(out.r), *i = pf::to_device(out.i);
  pf::timed_kernel([&] { fft<<<pf::blocks(n, 256), 256>>>(x, r, i, n); });
  pf::to_host(out.r, r);
  pf::to_host(out.i, i);
  pf::release(x);
  pf::release(r);
  pf::release(i);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("r", out.r);
  pf::print("i", out.i);
}
