// 48_sparse_la_sparse_axpy: z = alpha*x + y for sparse vectors x and y and a dense z.
#pragma once

struct PfInput {
  double alpha;
  std::size_t n;
  std::vector<Element> x, y;
};

struct PfOutput {
  std::vector<double> z;
};

// SIZE is the length of the dense z. x and y each hold about a quarter of the indices
// (distinct, sorted ascending), so about 1/16 of the indices appear in both; values in
// [-1, 1), alpha in [-2, 2).
inline PfInput pf_generate(pf::Rng &seeded, std::size_t n) {
  // pf::Rng(s + 1) yields the stream of pf::Rng(s) shifted by one draw: restarting from a
  // scrambled seed keeps the inputs of neighbouring test seeds unrelated.
  pf::Rng rng(seeded.next());
  PfInput in;
  in.n = n;
  in.alpha = rng.uniform(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (rng.chance(0.25)) in.x.push_back({i, rng.uniform(-1.0, 1.0)});
    if (rng.chance(0.25)) in.y.push_back({i, rng.uniform(-1.0, 1.0)});
  }
  return in;
}

#ifndef __CUDACC__
// z arrives sized SIZE and zeroed.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.z.assign(in.n, 0.0);
  pf::timed([&] { sparseAxpy(in.alpha, in.x, in.y, out.z); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x or y."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t nx = in.x.size(), ny = in.y.size();
  PfOutput out;
  out.z.assign(in.n, 0.0);
  Element *x = pf::to_device(in.x), *y = pf::to_device(in.y);
  double *z = pf::to_device(out.z);
  pf::timed_kernel([&] { sparseAxpy<<<pf::blocks(std::max(nx, ny), 256), 256>>>(in.alpha, x, y, z, nx, ny, in.n); });
  pf::to_host(out.z, z);
  pf::release(x);
  pf::release(y);
  pf::release(z);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("z", out.z); }
