// 41_sort_k-th_smallest_element: the k-th smallest value of x.
#pragma once

struct PfInput {
  std::vector<int> x;
  int k;
};

struct PfOutput {
  int kth;
};

// ParEval's prompt is ambiguous about k: its example answers with sorted(x)[k] (k counted from 0)
// while its own reference returns sorted(x)[k-1] (k counted from 1). The generator makes both
// readings agree: it picks k in [1, SIZE-1] and plants a copy of sorted(x)[k-1] so that
// sorted(x)[k-1] == sorted(x)[k]. Values are in [0, 10000], as in ParEval; SIZE >= 2.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) v = static_cast<int>(rng.integer(0, 10000));
  in.k = n < 2 ? 1 : static_cast<int>(rng.integer(1, static_cast<long long>(n) - 1));
  if (n >= 2) {
    std::vector<int> sorted(in.x);
    std::nth_element(sorted.begin(), sorted.begin() + in.k, sorted.end());
    int above = sorted[in.k];
    int below = *std::max_element(sorted.begin(), sorted.begin() + in.k);
    // Replacing one occurrence of sorted[k] by sorted[k-1] makes positions k-1 and k equal.
    *std::find(in.x.begin(), in.x.end(), above) = below;
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0};
  pf::timed([&] { out.kth = findKthSmallest(in.x, in.k); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x), *kth = pf::to_device(0);
  pf::timed_kernel([&] { findKthSmallest<<<pf::blocks(n, 256), 256>>>(x, n, in.k, kth); });
  PfOutput out{pf::to_host(kth)};
  pf::release(x);
  pf::release(kth);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("kth", out.kth); }
