// 24_histogram_count_quartile: counts of values by fractional part: [0, .25), [.25, .5), [.5, .75), [.75, 1).
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::array<size_t, 4> bins;
};

// Non-negative values below 100 (the fractional part of a negative number is not defined by the
// prompt); a third of them exactly k + q/4, so the bin edges themselves occur.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    if (rng.chance(1.0 / 3)) {
      v = static_cast<double>(rng.integer(0, 99)) + 0.25 * static_cast<double>(rng.integer(0, 3));
    } else {
      v = rng.uniform(0.0, 100.0);
    }
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.bins.fill(0);
  pf::timed([&] { countQuartiles(in.x, out.bins); });
  return out;
}
#else
// "The kernel is launched with at least N threads." bins arrives zeroed.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  std::vector<size_t> bins(4, 0);
  double *x = pf::to_device(in.x);
  size_t *d_bins = pf::to_device(bins);
  pf::timed_kernel([&] { countQuartiles<<<pf::blocks(n, 256), 256>>>(x, n, d_bins); });
  pf::to_host(bins, d_bins);
  std::copy(bins.begin(), bins.end(), out.bins.begin());
  pf::release(x);
  pf::release(d_bins);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("bins", std::vector<size_t>(out.bins.begin(), out.bins.end()));
}
