// 59_transform_map_function: mask[i] = isPowerOfTwo(x[i]).
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  std::vector<bool> mask;
};

// A mix that exercises isPowerOfTwo: powers of two (about 30%), zeros, negatives (some of them
// negated powers of two) and other positive values.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    double kind = rng.uniform(0.0, 1.0);
    if (kind < 0.3) v = 1 << rng.integer(0, 30);
    else if (kind < 0.35) v = 0;
    else if (kind < 0.4) v = -(1 << rng.integer(0, 30));
    else if (kind < 0.5) v = static_cast<int>(rng.integer(INT_MIN, -1));
    else v = static_cast<int>(rng.integer(1, 1 << 20));
  }
  return in;
}

#ifndef __CUDACC__
// mask arrives sized and all false.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.mask.assign(in.x.size(), false);
  pf::timed([&] { mapPowersOfTwo(in.x, out.mask); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as elements in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x);
  bool *mask = nullptr;
  pf::cuda_check(cudaMalloc(&mask, n == 0 ? 1 : n * sizeof(bool)), "cudaMalloc");
  pf::cuda_check(cudaMemset(mask, 0, n == 0 ? 1 : n * sizeof(bool)), "cudaMemset");
  pf::timed_kernel([&] { mapPowersOfTwo<<<pf::blocks(n, 256), 256>>>(x, mask, n); });
  std::vector<unsigned char> host(n);
  if (n > 0) pf::cuda_check(cudaMemcpy(host.data(), mask, n * sizeof(bool), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  PfOutput out;
  out.mask.assign(host.begin(), host.end());
  pf::release(x);
  pf::release(mask);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("mask", out.mask); }
