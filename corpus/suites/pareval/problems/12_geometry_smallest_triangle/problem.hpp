// 12_geometry_smallest_triangle: the smallest area of a triangle formed by any 3 points.
#pragma once

struct PfInput {
  std::vector<Point> points;
};

struct PfOutput {
  double area;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.points.resize(n);
  for (auto &p : in.points) {
    p.x = rng.uniform(-100.0, 100.0);
    p.y = rng.uniform(-100.0, 100.0);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0.0};
  pf::timed([&] { out.area = smallestArea(in.points); });
  return out;
}
#else
// "The kernel is launched with at least N threads." The result arrives holding DBL_MAX.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.points.size();
  Point *points = pf::to_device(in.points);
  double *area = pf::to_device(DBL_MAX);
  pf::timed_kernel([&] { smallestArea<<<pf::blocks(n, 256), 256>>>(points, n, area); });
  PfOutput out{pf::to_host(area)};
  pf::release(points);
  pf::release(area);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("area", out.area); }
