// 31_scan_scan_with_min_function: x[i] becomes min(x[0], ..., x[i]), in place.
#pragma once

struct PfInput {
  std::vector<float> x;
};

struct PfOutput {
  std::vector<float> x;
};

// Noise in [-100, 100) on a downward trend of 300 over the vector: the running minimum keeps
// changing all along (pure noise would reach its floor early and then stay flat).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double trend = -300.0 * static_cast<double>(i) / static_cast<double>(n);
    in.x[i] = static_cast<float>(rng.uniform(-100.0, 100.0) + trend);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { partialMinimums(out.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  float *x = pf::to_device(in.x);
  pf::timed_kernel([&] { partialMinimums<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, x);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
