// 10_geometry_convex_hull: the vertices of the convex hull of a set of points.
//
// The answer is compared as a set: the driver prints the hull's points sorted by x, then y,
// whatever order the solution stored them in.
#pragma once

struct PfInput {
  std::vector<Point> points;
};

struct PfOutput {
  std::vector<Point> hull;
};

// Uniform in a disk of radius 100 (about n^(1/3) hull vertices); random doubles, so no three
// points are collinear and no two coincide.
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
  PfOutput out;
  pf::timed([&] { convexHull(in.points, out.hull); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as points." `hull` has room for
// hullSize = numPoints points and arrives filled with {DBL_MAX, DBL_MAX}; the hull is the
// set of entries the kernel overwrote.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.points.size();
  std::vector<Point> slots(n, Point{DBL_MAX, DBL_MAX});
  Point *points = pf::to_device(in.points), *hull = pf::to_device(slots);
  pf::timed_kernel([&] { convexHull<<<pf::blocks(n, 256), 256>>>(points, n, hull, n); });
  pf::to_host(slots, hull);
  pf::release(points);
  pf::release(hull);
  PfOutput out;
  for (auto const &p : slots) {
    if (p.x != DBL_MAX || p.y != DBL_MAX) out.hull.push_back(p);
  }
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  std::vector<std::pair<double, double>> sorted;
  for (auto const &p : out.hull) sorted.emplace_back(p.x, p.y);
  std::sort(sorted.begin(), sorted.end());
  std::printf("hull %zu\n", sorted.size());
  for (auto const &p : sorted) {
    pf::put(p.first);
    pf::put(p.second);
    std::printf("\n");
  }
}
