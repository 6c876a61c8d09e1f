// 36_search_check_if_array_contains_value: does x contain target?
#pragma once

struct PfInput {
  std::vector<int> x;
  int target = 0;
};

struct PfOutput {
  bool found = false;
};

// Values in [-1000, 1000]. Depending on the input, target is absent, the first value, the
// last value, at one random place or at several: so a solution that skips either end of the
// vector, or a remainder of it, is caught.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  long long mode = rng.integer(0, 4);
  in.target = static_cast<int>(rng.integer(-1000, 1000));
  in.x.resize(n);
  for (auto &v : in.x) {
    do {
      v = static_cast<int>(rng.integer(-1000, 1000));
    } while (v == in.target);
  }
  if (n == 0 || mode == 0) return in;
  auto anywhere = [&] { return static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1)); };
  if (mode == 1) in.x[0] = in.target;
  if (mode == 2) in.x[n - 1] = in.target;
  if (mode == 3) in.x[anywhere()] = in.target;
  if (mode == 4) {
    for (int k = 0; k < 3; ++k) in.x[anywhere()] = in.target;
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.found = contains(in.x, in.target); });
  return out;
}
#else
// "The kernel is launched with at least N threads." found arrives false (one byte per bool).
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x);
  bool *found = reinterpret_cast<bool *>(pf::to_device(std::vector<unsigned char>{0}));
  pf::timed_kernel([&] { contains<<<pf::blocks(n, 256), 256>>>(x, n, in.target, found); });
  std::vector<unsigned char> result(1);
  pf::to_host(result, reinterpret_cast<unsigned char *>(found));
  PfOutput out;
  out.found = result[0] != 0;
  pf::release(x);
  pf::release(found);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("found", out.found); }
