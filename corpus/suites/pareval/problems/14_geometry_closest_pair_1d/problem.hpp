// 14_geometry_closest_pair_1d: the distance between the closest two values.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  double distance;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<double>(n)};
  for (auto &v : in.x) v = rng.uniform(-1.0e6, 1.0e6);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0.0};
  pf::timed([&] { out.distance = closestPair(in.x); });
  return out;
}
#else
// "The kernel is launched with at least N threads." The result arrives holding DBL_MAX.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  double *x = pf::to_device(in.x);
  double *distance = pf::to_device(DBL_MAX);
  pf::timed_kernel([&] { closestPair<<<pf::blocks(n, 256), 256>>>(x, n, distance); });
  PfOutput out{pf::to_host(distance)};
  pf::release(x);
  pf::release(distance);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("distance", out.distance); }
