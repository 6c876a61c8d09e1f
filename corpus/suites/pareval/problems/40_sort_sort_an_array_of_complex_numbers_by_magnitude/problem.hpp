// 40_sort_sort_an_array_of_complex_numbers_by_magnitude: sort x by |x[i]|, ascending, in place.
#pragma once

struct PfInput {
  std::vector<std::complex<double>> x;
};

struct PfOutput {
  std::vector<std::complex<double>> x;
};

// Real and imaginary parts in [-10, 10): magnitudes are distinct with overwhelming probability,
// so every correct sort yields the same order.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    double re = rng.uniform(-10.0, 10.0);
    v = {re, rng.uniform(-10.0, 10.0)};
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { sortComplexByMagnitude(out.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as elements in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  // std::complex<double> and cuDoubleComplex share their layout: two doubles.
  auto *x = reinterpret_cast<cuDoubleComplex *>(pf::to_device(in.x));
  pf::timed_kernel([&] { sortComplexByMagnitude<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, reinterpret_cast<std::complex<double> *>(x));
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
