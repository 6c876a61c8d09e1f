// 37_search_find_the_closest_number_to_pi: the index of the value closest to M_PI.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::size_t index = 0;
};

// Values in [-100, 100). Depending on the input, a value within 0.001 of pi (closer than any
// random one is likely to be) is planted first, last, at a random place or nowhere: so a
// solution that skips either end of the vector, or a remainder of it, is caught.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  long long mode = rng.integer(0, 3);
  in.x.resize(n);
  for (auto &v : in.x) v = rng.uniform(-100.0, 100.0);
  if (n == 0 || mode == 0) return in;
  std::size_t at = mode == 1 ? 0 : mode == 2 ? n - 1 : static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1));
  in.x[at] = M_PI + rng.uniform(-0.001, 0.001);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.index = findClosestToPi(in.x); });
  return out;
}
#else
// "The kernel is launched with at least N threads." closestToPiIndex arrives as 0, as in
// ParEval's driver.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  double *x = pf::to_device(in.x);
  size_t *index = pf::to_device(static_cast<size_t>(0));
  pf::timed_kernel([&] { findClosestToPi<<<pf::blocks(n, 256), 256>>>(x, n, index); });
  PfOutput out;
  out.index = pf::to_host(index);
  pf::release(x);
  pf::release(index);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("index", out.index); }
