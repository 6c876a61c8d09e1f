// 42_sort_sorted_ranks: ranks[i] = the index of x[i] in sorted(x).
#pragma once

struct PfInput {
  std::vector<float> x;
};

struct PfOutput {
  std::vector<size_t> ranks;
};

// Distinct values (a random permutation of quarter steps around 0), so every value has exactly
// one index in the sorted vector: with ties the prompt's second example and ParEval's own
// reference disagree.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  std::vector<int> p = rng.permutation(n);
  in.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) in.x[i] = static_cast<float>(p[i] - static_cast<long>(n / 2)) * 0.25f;
  return in;
}

#ifndef __CUDACC__
// ranks arrives sized like x and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.ranks.assign(in.x.size(), 0);
  pf::timed([&] { ranks(in.x, out.ranks); });
  return out;
}
#else
// "The kernel will be launched with at least as many threads as elements in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  out.ranks.assign(n, 0);
  float *x = pf::to_device(in.x);
  size_t *r = pf::to_device(out.ranks);
  pf::timed_kernel([&] { ranks<<<pf::blocks(n, 256), 256>>>(x, r, n); });
  pf::to_host(out.ranks, r);
  pf::release(x);
  pf::release(r);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("ranks", out.ranks); }
