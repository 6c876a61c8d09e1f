// 34_scan_largest_contiguous_subarray_sum: the largest sum of a non-empty contiguous subarray.
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  int sum = 0;
};

// Values in [-100, 100]; one input in four has only negative values, where the answer is the
// largest single value (a solution that allows the empty subarray returns 0 there).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.x.resize(n);
  bool negative = rng.chance(0.25);
  for (auto &v : in.x) v = static_cast<int>(negative ? rng.integer(-100, -1) : rng.integer(-100, 100));
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.sum = maximumSubarray(in.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." sum arrives as
// INT_MIN, the identity of max (ParEval's driver passes 0, which hides all-negative inputs).
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x);
  int *sum = pf::to_device(std::numeric_limits<int>::min());
  pf::timed_kernel([&] { maximumSubarray<<<pf::blocks(n, 256), 256>>>(x, n, sum); });
  PfOutput out;
  out.sum = pf::to_host(sum);
  pf::release(x);
  pf::release(sum);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("sum", out.sum); }
