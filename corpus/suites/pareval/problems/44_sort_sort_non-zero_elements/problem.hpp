// 44_sort_sort_non-zero_elements: sort the non-zero values of x in place; zeros keep their places.
#pragma once

struct PfInput {
  std::vector<int> x;
};

struct PfOutput {
  std::vector<int> x;
};

// About 40% zeros; the other values in [-100000, 100000] \ {0}.
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.x.resize(n);
  for (auto &v : in.x) {
    if (rng.chance(0.4)) {
      v = 0;
    } else {
      do {
        v = static_cast<int>(rng.integer(-100000, 100000));
      } while (v == 0);
    }
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.x};
  pf::timed([&] { sortIgnoreZero(out.x); });
  return out;
}
#else
// "The kernel will be launched with 1 thread per element."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out{in.x};
  int *x = pf::to_device(in.x);
  pf::timed_kernel([&] { sortIgnoreZero<<<pf::blocks(n, 256), 256>>>(x, n); });
  pf::to_host(out.x, x);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
