// 02_dense_la_gemm: C = A * B with A MxK, B KxN, C MxN, all row-major.
#pragma once

struct PfInput {
  std::vector<double> A, B;
  std::size_t M, K, N;
};

struct PfOutput {
  std::vector<double> C;
};

// SIZE sets M; K and N differ from it so that swapped dimensions or indices show.
inline PfInput pf_generate(pf::Rng &rng, std::size_t size) {
  PfInput in;
  in.M = size;
  in.K = size + size / 4 + 1;
  in.N = size - size / 4 + 2;
  in.A.resize(in.M * in.K);
  in.B.resize(in.K * in.N);
  for (auto &v : in.A) v = rng.uniform(-1.0, 1.0);
  for (auto &v : in.B) v = rng.uniform(-1.0, 1.0);
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.M * in.N, 0.0)};
  pf::timed([&] { gemm(in.A, in.B, out.C, in.M, in.K, in.N); });
  return out;
}
#else
// "The kernel is launched on an MxN grid of threads": x covers M (rows), y covers N (columns).
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{std::vector<double>(in.M * in.N, 0.0)};
  double *A = pf::to_device(in.A), *B = pf::to_device(in.B), *C = pf::to_device(out.C);
  dim3 threads(16, 16), blocks(pf::blocks(in.M, 16), pf::blocks(in.N, 16));
  pf::timed_kernel([&] { gemm<<<blocks, threads>>>(A, B, C, in.M, in.K, in.N); });
  pf::to_host(out.C, C);
  pf::release(A);
  pf::release(B);
  pf::release(C);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("C", out.C); }
