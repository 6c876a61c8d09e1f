// 33_scan_reverse_prefix_sum: output[i] = x[n-1] + x[n-2] + ... + x[n-1-i] (the prompt's examples).
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  std::vector<int> output;
};

// Values in [-100, 100]: no sum comes near INT_MAX at any size used here.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = static_cast<int>(rng.integer(-100, 100));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.output.assign(in.x.size(), 0);
  pf::timed([&] { reversePrefixSum(in.x, out.output); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  out.output.assign(n, 0);
  int *x = pf::to_device(in.x), *output = pf::to_device(out.output);
  pf::timed_kernel([&] { reversePrefixSum<<<pf::blocks(n, 256), 256>>>(x, output, n); });
  pf::to_host(out.output, output);
  pf::release(x);
  pf::release(output);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
