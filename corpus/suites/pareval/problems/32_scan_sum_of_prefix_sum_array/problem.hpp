// 32_scan_sum_of_prefix_sum_array: the sum of all prefix sums of x.
#pragma once

struct PfInput {
  std::vector<double> x;
};

struct PfOutput {
  double sum = 0.0;
};

// Whole numbers in [-100, 100]: every sum involved stays a whole number below 2^53, exact in
// any order of addition, so the answer compares exactly.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = static_cast<double>(rng.integer(-100, 100));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.sum = sumOfPrefixSum(in.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." sum arrives 0.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  double *x = pf::to_device(in.x);
  double *sum = pf::to_device(0.0);
  pf::timed_kernel([&] { sumOfPrefixSum<<<pf::blocks(n, 256), 256>>>(x, n, sum); });
  PfOutput out;
  out.sum = pf::to_host(sum);
  pf::release(x);
  pf::release(sum);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("sum", out.sum); }
