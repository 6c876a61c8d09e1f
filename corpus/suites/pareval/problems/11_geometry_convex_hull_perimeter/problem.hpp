// 11_geometry_convex_hull_perimeter: the perimeter of the convex hull of a set of points.
#pragma once

struct PfInput {
  std::vector<Point> points;
};

struct PfOutput {
  double perimeter;
};

// Uniform in a disk of radius 100; random doubles, so no three points are collinear.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.points.resize(n);
  for (auto &p : in.points) {
    double r = 100.0 * std::sqrt(rng.uniform(0.0, 1.0)), angle = rng.uniform(0.0, 2.0 * M_PI);
    p.x = r * std::cos(angle);
    p.y = r * std::sin(angle);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0.0};
  pf::timed([&] { out.perimeter = convexHullPerimeter(in.points); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as points." The result arrives
// holding 0.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.points.size();
  Point *points = pf::to_device(in.points);
  double *perimeter = pf::to_device(0.0);
  pf::timed_kernel([&] { convexHullPerimeter<<<pf::blocks(n, 256), 256>>>(points, n, perimeter); });
  PfOutput out{pf::to_host(perimeter)};
  pf::release(points);
  pf::release(perimeter);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("perimeter", out.perimeter); }
