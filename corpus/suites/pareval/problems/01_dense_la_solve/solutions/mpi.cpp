#include <mpi.h>

/* Solve the linear system Ax=b for x.
   A is an NxN matrix in row-major. x and b have N elements.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A and b. Store the result in x on rank 0.
   Example:
   
   input: A=[[1,4,2], [1,2,3], [2,1,3]] b=[11, 11, 13]
   output: x=[3, 1, 2]
*/
void solveLinearSystem(std::vector<double> const& A, std::vector<double> const& b, std::vector<double> &x, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rows are dealt out cyclically and never moved: at step i the unused row with the largest
  // entry in column i (found with MAXLOC) is broadcast by its owner and eliminates column i
  // from the other unused rows. Every rank keeps the broadcast rows: the triangular system.
  std::vector<double> M(A), rhs(b);
  std::vector<char> used(N, 0);
  std::vector<double> U(N * N, 0.0), c(N, 0.0), row(N + 1);
  for (size_t i = 0; i < N; i++) {
    struct { double value; int index; } best = {-1.0, -1}, pick;
    for (size_t j = rank; j < N; j += size) {
      if (!used[j] && std::abs(M[j * N + i]) > best.value) {
        best.value = std::abs(M[j * N + i]);
        best.index = (int)j;
      }
    }
    MPI_Allreduce(&best, &pick, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    size_t p = pick.index;
    int owner = p % size;
    if (rank == owner) {
      for (size_t k = i; k < N; k++) row[k - i] = M[p * N + k];
      row[N - i] = rhs[p];
    }
    MPI_Bcast(row.data(), N - i + 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);
    used[p] = 1;
    for (size_t k = i; k < N; k++) U[i * N + k] = row[k - i];
    c[i] = row[N - i];
    for (size_t j = rank; j < N; j += size) {
      if (used[j]) continue;
      double factor = M[j * N + i] / row[0];
      for (size_t k = i; k < N; k++) M[j * N + k] -= factor * row[k - i];
      rhs[j] -= factor * c[i];
    }
  }
  if (rank == 0) {
    for (size_t r = 0; r < N; r++) {
      size_t i = N - 1 - r;
      double sum = 0;
      for (size_t k = i + 1; k < N; k++) sum += U[i * N + k] * x[k];
      x[i] = (c[i] - sum) / U[i * N + i];
    }
  }
}
