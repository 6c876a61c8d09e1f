// 39_search_xor_contains: is val in exactly one of x and y?
#pragma once

struct PfInput {
  std::vector<int> x, y;
  int val = 0;
};

struct PfOutput {
  bool found = false;
};

// x and y hold SIZE values each in [-1000, 1000]. Depending on the input, val is in x, in y,
// in both or in neither; where it is, it is the last value or at a random place (sometimes
// twice), so a solution that skips the end of a vector, or a remainder of it, is caught.
inline void pf_plant(pf::Rng &rng, std::vector<int> &v, int val) {
  std::size_t n = v.size();
  if (n == 0) return;
  auto anywhere = [&] { return static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1)); };
  long long where = rng.integer(0, 2);
  if (where == 0) v[n - 1] = val;
  if (where == 1) v[anywhere()] = val;
  if (where == 2) {
    v[anywhere()] = val;
    v[anywhere()] = val;
  }
}

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  bool in_x = rng.chance(0.5), in_y = rng.chance(0.5);
  in.val = static_cast<int>(rng.integer(-1000, 1000));
  for (auto *v : {&in.x, &in.y}) {
    v->resize(n);
    for (auto &e : *v) {
      do {
        e = static_cast<int>(rng.integer(-1000, 1000));
      } while (e == in.val);
    }
  }
  if (in_x) pf_plant(rng, in.x, in.val);
  if (in_y) pf_plant(rng, in.y, in.val);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  pf::timed([&] { out.found = xorContains(in.x, in.y, in.val); });
  return out;
}
#else
// "The kernel is launched with at least N threads." found arrives false (one byte per bool).
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  int *x = pf::to_device(in.x), *y = pf::to_device(in.y);
  bool *found = reinterpret_cast<bool *>(pf::to_device(std::vector<unsigned char>{0}));
  pf::timed_kernel([&] { xorContains<<<pf::blocks(n, 256), 256>>>(x, y, n, in.val, found); });
  std::vector<unsigned char> result(1);
  pf::to_host(result, reinterpret_cast<unsigned char *>(found));
  PfOutput out;
  out.found = result[0] != 0;
  pf::release(x);
  pf::release(y);
  pf::release(found);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("found", out.found); }
