// 55_transform_relu: x[i] = max(x[i], 0) in place.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::vector<double> x;
};

// Values in [-10, 10); about one in twenty is exactly 0, as in the prompt's example.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = rng.chance(0.05) ? 0.0 : rng.uniform(-10.0, 10.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { relu(out.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  double *x = pf::to_device(in.x);
  pf::timed_kernel([&] { relu<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, x);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
