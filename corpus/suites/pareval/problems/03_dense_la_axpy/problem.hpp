// 03_dense_la_axpy: z = alpha*x + y.
#pragma once

struct PfInput {
  double alpha;
  std::vector<double> x, y;
};

struct PfOutput {
  std::vector<double> z;
};

inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in;
  in.alpha = rng.uniform(-2.0, 2.0);
  in.x.resize(n);
  in.y.resize(n);
  for (auto &v : in.x) v = rng.uniform(-10.0, 10.0);
  for (auto &v : in.y) v = rng.uniform(-10.0, 10.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out;
  out.z.assign(in.x.size(), 0.0);
  pf::timed([&] { axpy(in.alpha, in.x, in.y, out.z); });
  return out;
}
#else
// "The kernel is launched with at least as many threads as values in x."
inline PfOutput pf_run(PfInput const &in) {
  std::size_t n = in.x.size();
  PfOutput out;
  out.z.assign(n, 0.0);
  double *x = pf::to_device(in.x), *y = pf::to_device(in.y), *z = pf::to_device(out.z);
  pf::timed_kernel([&] { axpy<<<pf::blocks(n, 256), 256>>>(in.alpha, x, y, z, n); });
  pf::to_host(out.z, z);
  pf::release(x);
  pf::release(y);
  pf::release(z);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("z", out.z); }
