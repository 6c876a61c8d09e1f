// 17_graph_highest_degree: the highest vertex degree of an undirected graph.
#pragma once

struct PfInput {
  std::vector<int> A;
  std::size_t N;
};

struct PfOutput {
  int degree;
};

// Symmetric 0/1 matrix without self-loops; each vertex has its own affinity for edges, so
// degrees vary widely.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<int>(n * n, 0), n};
  std::vector<double> affinity(n);
  for (auto &a : affinity) a = rng.uniform(0.0, 0.6);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (rng.chance(0.5 * (affinity[i] + affinity[j]))) in.A[i * n + j] = in.A[j * n + i] = 1;
    }
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0};
  pf::timed([&] { out.degree = maxDegree(in.A, in.N); });
  return out;
}
#else
// "The kernel is launched with at least N threads." The result arrives holding 0.
inline PfOutput pf_run(PfInput const &in) {
  int *A = pf::to_device(in.A);
  int *result = pf::to_device(0);
  pf::timed_kernel([&] { maxDegree<<<pf::blocks(in.N, 256), 256>>>(A, in.N, result); });
  PfOutput out{pf::to_host(result)};
  pf::release(A);
  pf::release(result);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("degree", out.degree); }
