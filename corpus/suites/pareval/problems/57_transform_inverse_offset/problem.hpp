// 57_transform_inverse_offset: x[i] = 1 - 1/x[i] in place.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::vector<double> x;
};

// Values in [-10, 10) with |x| >= 0.001, so 1/x stays finite and moderate.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    do {
      v = rng.uniform(-10.0, 10.0);
    } while (std::fabs(v) < 1e-3);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { oneMinusInverse(out.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as elements in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  double *x = pf::to_device(in.x);
  pf::timed_kernel([&] { oneMinusInverse<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, x);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
