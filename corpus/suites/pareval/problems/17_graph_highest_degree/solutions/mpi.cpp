#include <mpi.h>

/* Compute the highest node degree in the undirected graph. The graph is defined in the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. The result is returned on rank 0.
   Example:

	 input: [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]]
   output: 3
*/
int maxDegree(std::vector<int> const& A, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Blocks of rows; the first N % size ranks take one row more.
  size_t base = N / size, extra = N % size;
  size_t begin = rank * base + std::min<size_t>(rank, extra);
  size_t end = begin + base + (rank < (int)extra ? 1 : 0);
  int local = 0;
  for (size_t i = begin; i < end; ++i) {
    int degree = 0;
    for (size_t j = 0; j < N; ++j) {
      degree += A[i * N + j];
    }
    local = std::max(local, degree);
  }
  int best = 0;
  MPI_Reduce(&local, &best, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  return best;
}
