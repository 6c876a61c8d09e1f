#include <mpi.h>

/* Factorize the matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   Store the results for L and U into the original matrix A. 
   A is an NxN matrix stored in row-major.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. Store the result in A on rank 0.
   Example:

   input: [[4, 3], [6, 3]]
   output: [[4, 3], [1.5, -1.5]]
*/
void luFactorize(std::vector<double> &A, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rows are dealt out cyclically; at step i the owner of row i broadcasts its tail.
  std::vector<double> pivot(N);
  for (size_t i = 0; i < N; i++) {
    int owner = i % size;
    if (rank == owner) {
      std::copy(A.begin() + i * N + i, A.begin() + (i + 1) * N, pivot.begin() + i);
    }
    MPI_Bcast(pivot.data() + i, N - i, MPI_DOUBLE, owner, MPI_COMM_WORLD);
    for (size_t j = i + 1; j < N; j++) {
      if ((int)(j % size) != rank) continue;
      double factor = A[j * N + i] / pivot[i];
      A[j * N + i] = factor;
      for (size_t k = i + 1; k < N; k++) {
        A[j * N + k] -= factor * pivot[k];
      }
    }
  }
  // Collect the rows of the other ranks on rank 0.
  for (size_t j = 0; j < N; j++) {
    int owner = j % size;
    if (owner == 0) continue;
    if (rank == owner) {
      MPI_Send(&A[j * N], N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
      MPI_Recv(&A[j * N], N, MPI_DOUBLE, owner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}
