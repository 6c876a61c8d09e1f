// 58_transform_squaring: x[i] = x[i]^2 in place.
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  std::vector<int> x;
};

// Values in [-1000, 1000]: squares fit an int with room to spare.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = static_cast<int>(rng.integer(-1000, 1000));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { squareEach(out.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  int *x = pf::to_device(in.x);
  pf::timed_kernel([&] { squareEach<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, x);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
