#include <mpi.h>

/* Multiply the matrix A by the matrix B. Store the results in the matrix C.
   A is an MxK matrix, B is a KxN matrix, and C is a MxN matrix. The matrices are stored in row-major.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A and B. Store the result in C on rank 0.
   Example:

   input: A=[[1, -1, 2], [0, -2, 1]] B=[[4, 1], [-1, 0], [2, 2]]
   output: C=[[9, 5], [4, 2]]
*/
void gemm(std::vector<double> const& A, std::vector<double> const& B, std::vector<double> &C, size_t M, size_t K, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Blocks of rows of C; counts and offsets are in doubles for the gather.
  std::vector<int> counts(size), displs(size);
  size_t first = 0;
  for (int r = 0; r < size; ++r) {
    size_t rows = M / size + (r < (int)(M % size) ? 1 : 0);
    counts[r] = rows * N;
    displs[r] = first * N;
    first += rows;
  }
  size_t row0 = displs[rank] / (N == 0 ? 1 : N);
  size_t rows = counts[rank] / (N == 0 ? 1 : N);
  std::vector<double> local(rows * N, 0.0);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t k = 0; k < K; ++k) {
      double a = A[(row0 + i) * K + k];
      for (size_t j = 0; j < N; ++j) {
        local[i * N + j] += a * B[k * N + j];
      }
    }
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, C.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
