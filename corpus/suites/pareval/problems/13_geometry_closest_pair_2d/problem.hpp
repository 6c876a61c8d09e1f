// 13_geometry_closest_pair_2d: the distance between the closest two points.
#pragma once

struct PfInput {
  std::vector<Point> points;
};

struct PfOutput {
  double distance;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.points.resize(n);
  for (auto &p : in.points) {
    p.x = rng.uniform(-1000.0, 1000.0);
    p.y = rng.uniform(-1000.0, 1000.0);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0.0};
  pf::timed([&] { out.distance = closestPair(in.points); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as points." The result arrives
// holding DBL_MAX.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.points.size();
  Point *points = pf::to_device(in.points);
  double *distance = pf::to_device(DBL_MAX);
  pf::timed_kernel([&] { closestPair<<<pf::blocks(n, 256), 256>>>(points, n, distance); });
  PfOutput out{pf::to_host(distance)};
  pf::release(points);
  pf::release(distance);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("distance", out.distance); }
