#include <omp.h>

/* Return the number of vertices in the largest component of the undirected graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use OpenMP to compute in parallel.
   Example:

	 input: [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
   output: 2
*/
int largestComponent(std::vector<int> const& A, size_t N) {
  // Each thread builds a union-find forest of the edges in its rows (dealt out cyclically);
  // merging the forests gives the components of the whole graph, then their sizes are counted.
  int T = omp_get_max_threads();
  std::vector<std::vector<int>> parent(T, std::vector<int>(N));
  for (auto &p : parent) std::iota(p.begin(), p.end(), 0);
  auto find = [](std::vector<int> &p, int v) {
    while (p[v] != v) {
      p[v] = p[p[v]];
      v = p[v];
    }
    return v;
  };
  auto unite = [&find](std::vector<int> &p, int a, int b) {
    a = find(p, a);
    b = find(p, b);
    if (a != b) p[std::max(a, b)] = std::min(a, b);
  };
  #pragma omp parallel num_threads(T)
  {
    std::vector<int> &p = parent[omp_get_thread_num()];
    #pragma omp for schedule(static, 1)
    for (long i = 0; i < (long)N; ++i) {
      for (size_t j = i + 1; j < N; ++j) {
        if (A[i * N + j]) unite(p, i, j);
      }
    }
  }
  std::vector<int> &all = parent[0];
  for (int t = 1; t < T; ++t) {
    for (size_t v = 0; v < N; ++v) unite(all, v, find(parent[t], v));
  }
  std::vector<int> root(N), sizes(N, 0);
  for (size_t v = 0; v < N; ++v) root[v] = find(all, v);
  #pragma omp parallel for
  for (long v = 0; v < (long)N; ++v) {
    #pragma omp atomic
    sizes[root[v]]++;
  }
  int largest = 0;
  #pragma omp parallel for reduction(max : largest)
  for (long v = 0; v < (long)N; ++v) {
    if (sizes[v] > largest) largest = sizes[v];
  }
  return largest;
}
