#include <mpi.h>

/* Count the number of edges in the directed graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A represents a directed graph.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. The result is returned on rank 0.
   Example:

	 input: [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]]
   output: 3
*/
int edgeCount(std::vector<int> const& A, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Blocks of rows; the first N % size ranks take one row more.
  size_t base = N / size, extra = N % size;
  size_t begin = rank * base + std::min<size_t>(rank, extra);
  size_t end = begin + base + (rank < (int)extra ? 1 : 0);
  int local = 0;
  for (size_t i = begin; i < end; ++i) {
    for (size_t j = 0; j < N; ++j) {
      if (A[i * N + j] == 1) ++local;
    }
  }
  int total = 0;
  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return total;
}
