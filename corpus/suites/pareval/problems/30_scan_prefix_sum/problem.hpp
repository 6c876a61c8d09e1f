// 30_scan_prefix_sum: output[i] = x[0] + ... + x[i].
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  std::vector<double> output;
};

// Whole numbers in [-100, 100]: every partial sum is exact in any order of addition, so outputs
// compare exactly however a solution associates the sums.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = static_cast<double>(rng.integer(-100, 100));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.output.assign(in.x.size(), 0.0);
  pf::timed([&] { prefixSum(in.x, out.output); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as elements in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  out.output.assign(n, 0.0);
  double *x = pf::to_device(in.x), *output = pf::to_device(out.output);
  pf::timed_kernel([&] { prefixSum<<<pf::blocks(n, 256), 256>>>(x, output, n); });
  pf::to_host(out.output, output);
  pf::release(x);
  pf::release(output);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("output", out.output); }
