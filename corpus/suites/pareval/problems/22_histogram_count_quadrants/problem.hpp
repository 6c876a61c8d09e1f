// 22_histogram_count_quadrants: how many points lie in each of the four quadrants.
#pragma once

struct PfInput {
  std::vector<Point> points;
};

struct PfOutput {
  std::array<size_t, 4> bins;
};

// Coordinates in [-10, 10), never 0: the prompt does not say where a point on an axis belongs.
inline double pf_coordinate(pf::Rng &rng) {
  double v = 0.0;
  while (v == 0.0) v = rng.uniform(-10.0, 10.0);
  return v;
}

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.points.resize(n);
  for (auto &p : in.points) {
    p.x = pf_coordinate(rng);
    p.y = pf_coordinate(rng);
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.bins.fill(0);
  pf::timed([&] { countQuadrants(in.points, out.bins); });
  return out;
}
#else
// "The kernel is launched with at least N threads." bins arrives zeroed.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.points.size();
  PfOutput out;
  std::vector<size_t> bins(4, 0);
  Point *points = pf::to_device(in.points);
  size_t *d_bins = pf::to_device(bins);
  pf::timed_kernel([&] { countQuadrants<<<pf::blocks(n, 256), 256>>>(points, n, d_bins); });
  pf::to_host(bins, d_bins);
  std::copy(bins.begin(), bins.end(), out.bins.begin());
  pf::release(points);
  pf::release(d_bins);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("bins", std::vector<size_t>(out.bins.begin(), out.bins.end()));
}
