// 38_search_find_the_first_even_number: the index of the first even value (x.size() if none).
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  std::size_t index = 0;
};

// Odd values in [-999, 999] up to the first even one, then a mix. Depending on the input, the
// first even value is the first value, the last value, at a random place, or absent (the
// reference then returns x.size()).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  long long mode = rng.integer(0, 3);
  in.x.resize(n);
  for (auto &v : in.x) v = 2 * static_cast<int>(rng.integer(-500, 499)) + 1;
  if (n == 0 || mode == 0) return in;
  std::size_t first = mode == 1 ? 0 : mode == 2 ? n - 1 : static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1));
  in.x[first] = 2 * static_cast<int>(rng.integer(-500, 500));
  for (std::size_t i = first + 1; i < n; ++i) {
    if (rng.chance(0.3)) in.x[i] = 2 * static_cast<int>(rng.integer(-500, 500));
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.index = findFirstEven(in.x); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x." firstEvenIndex
// arrives as N, the reference's answer when there is no even value.
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x);
  size_t *index = pf::to_device(static_cast<size_t>(n));
  pf::timed_kernel([&] { findFirstEven<<<pf::blocks(n, 256), 256>>>(x, n, index); });
  PfOutput out;
  out.index = pf::to_host(index);
  pf::release(x);
  pf::release(index);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("index", out.index); }
