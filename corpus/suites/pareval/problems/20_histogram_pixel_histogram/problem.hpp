// 20_histogram_pixel_histogram: how many pixels of a grayscale image have each value 0-255.
#pragma once

struct PfInput {
  std::vector<int> image;
};

struct PfOutput {
  std::array<size_t, 256> bins;
};

// A third of the pixels fall in a narrow band (96-127), so the bins differ in size like those of
// a real image; every value 0-255 occurs in larger images.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.image.resize(n);
  for (auto &v : in.image) v = static_cast<int>(rng.chance(1.0 / 3) ? rng.integer(96, 127) : rng.integer(0, 255));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.bins.fill(0);
  pf::timed([&] { pixelCounts(in.image, out.bins); });
  return out;
}
#else
// "The kernel is launched with at least N threads." bins arrives zeroed.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.image.size();
  PfOutput out;
  std::vector<size_t> bins(256, 0);
  int *image = pf::to_device(in.image);
  size_t *d_bins = pf::to_device(bins);
  pf::timed_kernel([&] { pixelCounts<<<pf::blocks(n, 256), 256>>>(image, n, d_bins); });
  pf::to_host(bins, d_bins);
  std::copy(bins.begin(), bins.end(), out.bins.begin());
  pf::release(image);
  pf::release(d_bins);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) {
  pf::print("bins", std::vector<size_t>(out.bins.begin(), out.bins.end()));
}
