// 04_dense_la_gemv: y = A x with A MxN row-major.
#pragma once

struct PfInput {
  std::vector<double> A, x;
  std::size_t M, N;
};

struct PfOutput {
  std::vector<double> y;
};

// SIZE sets M; N differs from it so that swapped dimensions show.
inline PfInput pf_generate(pf::Rng &rng, std::size_t size) {
  PfInput in;
  in.M = size;
  in.N = size + size / 2 + 1;
  in.A.resize(in.M * in.N);
  in.x.resize(in.N);
  for (auto &v : in.A) v = rng.uniform(-1.0, 1.0);
  for (auto &v : in.x) v = rng.uniform(-1.0, 1.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.M, 0.0)};
  pf::timed([&] { gemv(in.A, in.x, out.y, in.M, in.N); });
  return out;
}
#else
// "The kernel is launched with at least M threads."
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.M, 0.0)};
  double *A = pf::to_device(in.A), *x = pf::to_device(in.x), *y = pf::to_device(out.y);
  pf::timed_kernel([&] { gemv<<<pf::blocks(in.M, 256), 256>>>(A, x, y, in.M, in.N); });
  pf::to_host(out.y, y);
  pf::release(A);
  pf::release(x);
  pf::release(y);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("y", out.y); }
