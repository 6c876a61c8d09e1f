// 19_graph_shortest_path: the length of the shortest path between two vertices of an
// undirected graph.
#pragma once

struct PfInput {
  std::vector<int> A;
  std::size_t N;
  int source, dest;
};

struct PfOutput {
  int length;
};

// A connected graph with long shortest paths: a random Hamiltonian path, local shortcuts of
// a few steps along it, and at most two long-range edges. source != dest when N > 1.
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<int>(n * n, 0), n, 0, 0};
  auto link = [&](int a, int b) {
    if (a != b) in.A[static_cast<std::size_t>(a) * n + b] = in.A[static_cast<std::size_t>(b) * n + a] = 1;
  };
  std::vector<int> order = rng.permutation(n);
  long long reach = rng.integer(2, 5);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    link(order[k], order[k + 1]);
    if (rng.chance(0.5)) {
      std::size_t to = std::min<std::size_t>(n - 1, k + static_cast<std::size_t>(rng.integer(2, reach)));
      link(order[k], order[to]);
    }
  }
  for (long long e = rng.integer(0, 2); e > 0 && n > 1; --e) {
    link(order[static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1))],
         order[static_cast<std::size_t>(rng.integer(0, static_cast<long long>(n) - 1))]);
  }
  if (n > 0) {
    in.source = static_cast<int>(rng.integer(0, static_cast<long long>(n) - 1));
    in.dest = in.source;
    while (n > 1 && in.dest == in.source) in.dest = static_cast<int>(rng.integer(0, static_cast<long long>(n) - 1));
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0};
  pf::timed([&] { out.length = shortestPathLength(in.A, in.N, in.source, in.dest); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": 16x16 blocks covering N x N. The
// result arrives holding -1.
inline PfOutput pf_run(PfInput const &in) {
  int *A = pf::to_device(in.A);
  int *length = pf::to_device(-1);
  dim3 threads(16, 16), blocks(pf::blocks(in.N, 16), pf::blocks(in.N, 16));
  pf::timed_kernel([&] { shortestPathLength<<<blocks, threads>>>(A, in.N, in.source, in.dest, length); });
  PfOutput out{pf::to_host(length)};
  pf::release(A);
  pf::release(length);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("length", out.length); }
