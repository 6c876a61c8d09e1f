// 01_dense_la_solve: solve Ax = b for an NxN row-major matrix A.
#pragma once

struct PfInput {
  std::vector<double> A, b;
  std::size_t N;
};

struct PfOutput {
  std::vector<double> x;
};

// Strictly diagonally dominant by rows and by columns: well conditioned, and partial pivoting
// never swaps rows, so methods with and without pivoting agree to rounding.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<double>(n * n), std::vector<double>(n), n};
  for (auto &v : in.A) v = rng.uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    double sign = rng.chance(0.5) ? 1.0 : -1.0;
    in.A[i * n + i] = sign * (static_cast<double>(n) + rng.uniform(1.0, 2.0));
  }
  for (auto &v : in.b) v = rng.uniform(-10.0, 10.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.N, 0.0)};
  pf::timed([&] { solveLinearSystem(in.A, in.b, out.x, in.N); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": 16x16 blocks covering N x N.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.N, 0.0)};
  double *A = pf::to_device(in.A), *b = pf::to_device(in.b), *x = pf::to_device(out.x);
  dim3 threads(16, 16), blocks(pf::blocks(in.N, 16), pf::blocks(in.N, 16));
  pf::timed_kernel([&] { solveLinearSystem<<<blocks, threads>>>(A, b, x, in.N); });
  pf::to_host(out.x, x);
  pf::release(A);
  pf::release(b);
  pf::release(x);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("x", out.x); }
