// 16_graph_largest_component: the number of vertices in the largest connected component of an undirected graph.
#pragma once

struct PfInput {
  std::vector<int> A;
  std::size_t N;
};

struct PfOutput {
  int result;
};

// Symmetric 0/1 matrix without self-loops whose components are runs of a random vertex
// order: each run gets a random spanning tree plus as many random extra edges, and run
// lengths vary from 1 (isolated vertices) to about 2 sqrt(n).
inline PfInput pf_generate(pf::Rng &rng, std::size_t n) {
  PfInput in{std::vector<int>(n * n, 0), n};
  auto link = [&](int a, int b) {
    if (a != b) in.A[static_cast<std::size_t>(a) * n + b] = in.A[static_cast<std::size_t>(b) * n + a] = 1;
  };
  std::vector<int> order = rng.permutation(n);
  double mean = 1.0 + rng.uniform(0.0, std::sqrt(static_cast<double>(n)));
  for (std::size_t start = 0; start < n;) {
    std::size_t len = std::min<std::size_t>(n - start, 1 + static_cast<std::size_t>(rng.integer(0, static_cast<long long>(2 * mean))));
    for (std::size_t k = start + 1; k < start + len; ++k) {
      link(order[k], order[start + static_cast<std::size_t>(rng.integer(0, static_cast<long long>(k - start) - 1))]);
    }
    for (std::size_t e = 0; e < len; ++e) {
      link(order[start + static_cast<std::size_t>(rng.integer(0, static_cast<long long>(len) - 1))],
           order[start + static_cast<std::size_t>(rng.integer(0, static_cast<long long>(len) - 1))]);
    }
    start += len;
  }
  return in;
}

#ifndef __CUDACC__
inline PfOutput pf_run(PfInput const &in) {
  PfOutput out{0};
  pf::timed([&] { out.result = largestComponent(in.A, in.N); });
  return out;
}
#else
// "The kernel is launched on an NxN grid of threads": 16x16 blocks covering N x N. The
// result arrives holding 0.
inline PfOutput pf_run(PfInput const &in) {
  int *A = pf::to_device(in.A);
  int *result = pf::to_device(0);
  dim3 threads(16, 16), blocks(pf::blocks(in.N, 16), pf::blocks(in.N, 16));
  pf::timed_kernel([&] { largestComponent<<<blocks, threads>>>(A, in.N, result); });
  PfOutput out{pf::to_host(result)};
  pf::release(A);
  pf::release(result);
  return out;
}
#endif

inline void pf_print(PfOutput const &out) { pf::print("size", out.result); }
