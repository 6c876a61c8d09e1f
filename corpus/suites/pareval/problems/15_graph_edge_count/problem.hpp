// 15_graph_edge_count: the number of edges of a directed graph given as an adjacency matrix.
#pragma once

struct PfInput {
  std::vector<int> A;
  std::size_t N;
};

struct PfOutput {
  int edges;
};

// Entries are 0 or 1 (self-loops included), with a density drawn per input.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<int>(n * n), n};
  double density = rng.uniform(0.05, 0.5);
  for (auto &v : in.A) v = rng.chance(density) ? 1 : 0;
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0};
  pf::timed([&] { out.edges = edgeCount(in.A, in.N); });
  return out;
}
#else
// "The kernel is launched with at least N threads." The result arrives holding 0.
inline PfOutput pf_run(PfInput const &in) {
  int *A = pf::to_device(in.A);
  int *numEdges = pf::to_device(0);
  pf::timed_kernel([&] { edgeCount<<<pf::blocks(in.N, 256), 256>>>(A, in.N, numEdges); });
  PfOutput out{pf::to_host(numEdges)};
  pf::release(A);
  pf::release(numEdges);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("edges", out.edges); }
