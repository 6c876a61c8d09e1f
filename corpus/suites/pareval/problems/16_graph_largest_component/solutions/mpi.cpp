#include <mpi.h>

/* Return the number of vertices in the largest component of the undirected graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. The result is returned on rank 0.
   Example:

	 input: [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
   output: 2
*/
int largestComponent(std::vector<int> const& A, size_t N) {
  // Each rank builds a union-find forest of the edges in its block of rows; rank 0 gathers
  // every forest's roots, merges them into the components and counts their sizes.
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
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
  size_t base = N / size, extra = N % size;
  size_t begin = rank * base + std::min<size_t>(rank, extra);
  size_t end = begin + base + (rank < (int)extra ? 1 : 0);
  std::vector<int> p(N);
  std::iota(p.begin(), p.end(), 0);
  for (size_t i = begin; i < end; ++i) {
    // Whole rows, so that blocks of rows carry equal work.
    for (size_t j = 0; j < N; ++j) {
      if (A[i * N + j]) unite(p, i, j);
    }
  }
  std::vector<int> roots(N);
  for (size_t v = 0; v < N; ++v) roots[v] = find(p, v);
  std::vector<int> all(rank == 0 ? N * size : 0);
  MPI_Gather(roots.data(), N, MPI_INT, all.data(), N, MPI_INT, 0, MPI_COMM_WORLD);
  int largest = 0;
  if (rank == 0) {
    std::vector<int> q(N), sizes(N, 0);
    std::iota(q.begin(), q.end(), 0);
    for (int r = 0; r < size; ++r) {
      for (size_t v = 0; v < N; ++v) unite(q, v, all[r * N + v]);
    }
    for (size_t v = 0; v < N; ++v) largest = std::max(largest, ++sizes[find(q, v)]);
  }
  return largest;
}
