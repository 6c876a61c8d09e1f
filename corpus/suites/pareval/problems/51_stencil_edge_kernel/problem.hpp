// 51_stencil_edge_kernel: 3x3 edge-detection convolution of an NxN grayscale image, clipped to [0, 255].
#pragma once

struct PfInput {
  std::size_t n;
  std::vector<int> image;
};

struct PfOutput {
  std::vector<int> image;
};

// SIZE is N, the side of the image; pixels in [0, 255].
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in{n, std::vector<int>(n * n)};
  for (auto &v : in.image) v = static_cast<int>(rng.integer(0, 255));
  return in;
}

#ifndef __CUDACC__
// imageOut arrives sized N*N and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.image.assign(in.n * in.n, 0);
  pf::timed([&] { convolveKernel(in.image, out.image, in.n); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": x counts columns, y counts rows.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.n;
  PfOutput out;
  out.image.assign(n * n, 0);
  int *imageIn = pf::to_device(in.image), *imageOut = pf::to_device(out.image);
  dim3 threads(16, 16), blocks(pf::blocks(n, 16), pf::blocks(n, 16));
  pf::timed_kernel([&] { convolveKernel<<<blocks, threads>>>(imageIn, imageOut, n); });
  pf::to_host(out.image, imageOut);
  pf::release(imageIn);
  pf::release(imageOut);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("imageOut", out.image); }
