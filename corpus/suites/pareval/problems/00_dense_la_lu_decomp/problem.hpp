// 00_dense_la_lu_decomp: in-place LU factorisation (no pivoting) of an NxN row-major matrix.
#pragma once

struct PfInput {
  std::vector<double> A;
  std::size_t N;
};

struct PfOutput {
  std::vector<double> A;
};

// Strictly diagonally dominant by rows and by columns, so elimination without pivoting is
// stable and every correct factorisation agrees to rounding.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<double>(n * n), n};
  for (auto &v : in.A) v = rng.uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    double sign = rng.chance(0.5) ? 1.0 : -1.0;
    in.A[i * n + i] = sign * (static_cast<double>(n) + rng.uniform(1.0, 2.0));
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.A};
  pf::timed([&] { luFactorize(out.A, in.N); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": 16x16 blocks covering N x N.
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{in.A};
  double *A = pf::to_device(out.A);
  dim3 threads(16, 16), blocks(pf::blocks(in.N, 16), pf::blocks(in.N, 16));
  pf::timed_kernel([&] { luFactorize<<<blocks, threads>>>(A, in.N); });
  pf::to_host(out.A, A);
  pf::release(A);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("A", out.A); }
