#include <mpi.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Factorize the sparse matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   A is a sparse NxN matrix stored in COO format.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. Store the result in L and U on rank 0.
   Example:

   input: A=[{0,0,4}, {0,1,3}, {1,0,6}, {1,1,3}]
   output: L=[{0,0,1},{1,0,1.5}, {1,1,1}] U=[{0,0,4}, {0,1,3}, {1,1,-1.5}]
*/
void luFactorize(std::vector<COOElement> const& A, std::vector<double> &L, std::vector<double> &U, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Right-looking elimination on rows dealt round-robin (row i lives on rank i % size): at step
  // k the owner broadcasts row k, which is final and becomes row k of U, and every rank
  // eliminates column k from its rows below. Rank 0 keeps the broadcast rows (U); the
  // multipliers (L) are summed onto rank 0, each rank having filled only its own rows.
  std::vector<double> M(N * N, 0.0), pivot(N);
  for (auto const& e : A) {
    M[e.row * N + e.column] = e.value;
  }
  std::fill(L.begin(), L.end(), 0.0);
  std::fill(U.begin(), U.end(), 0.0);
  for (size_t k = 0; k < N; ++k) {
    int owner = k % size;
    if (owner == rank) {
      std::copy(&M[k * N + k], &M[k * N] + N, &pivot[k]);
    }
    MPI_Bcast(&pivot[k], N - k, MPI_DOUBLE, owner, MPI_COMM_WORLD);
    if (rank == 0) {
      std::copy(&pivot[k], pivot.data() + N, &U[k * N + k]);
    }
    for (size_t i = rank; i < N; i += size) {
      if (i > k) {
        double f = M[i * N + k] / pivot[k];
        L[i * N + k] = f;
        for (size_t j = k + 1; j < N; ++j) {
          M[i * N + j] -= f * pivot[j];
        }
      }
    }
  }
  for (size_t i = rank; i < N; i += size) {
    L[i * N + i] = 1.0;
  }
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : L.data(), L.data(), N * N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
