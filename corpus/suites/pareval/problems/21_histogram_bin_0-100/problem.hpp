// 21_histogram_bin_0-100: counts of values in [0,10), [10,20), ..., [90,100] (100 is in the last bin).
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::array<size_t, 10> bins;
};

// Values in [0, 100]; a quarter of them whole numbers, so the bin edges 0, 10, ..., 100
// themselves occur and a solution that puts an edge in the wrong bin is caught.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = rng.chance(0.25) ? static_cast<double>(rng.integer(0, 100)) : rng.uniform(0.0, 100.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.bins.fill(0);
  pf::timed([&] { binsBy10Count(in.x, out.bins); });
  return out;
}
#else
// "The kernel is initialized with at least as many threads as values in x." bins arrives zeroed.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  std::vector<size_t> bins(10, 0);
  double *x = pf::to_device(in.x);
  size_t *d_bins = pf::to_device(bins);
  pf::timed_kernel([&] { binsBy10Count<<<pf::blocks(n, 256), 256>>>(x, n, d_bins); });
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
