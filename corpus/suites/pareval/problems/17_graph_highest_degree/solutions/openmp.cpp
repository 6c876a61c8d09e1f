#include <omp.h>

/* Compute the highest node degree in the undirected graph. The graph is defined in the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use OpenMP to compute in parallel.
   Example:

	 input: [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]]
   output: 3
*/
int maxDegree(std::vector<int> const& A, size_t N) {
  int best = 0;
  #pragma omp parallel for reduction(max : best) schedule(static)
  for (size_t i = 0; i < N; ++i) {
    int degree = 0;
    for (size_t j = 0; j < N; ++j) {
      degree += A[i * N + j];
    }
    if (degree > best) best = degree;
  }
  return best;
}
