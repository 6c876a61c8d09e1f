#include <mpi.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Solve the sparse linear system Ax=b for x.
   A is a sparse NxN matrix in COO format. x and b are dense vectors with N elements.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A and b. Store the result in x on rank 0.
   Example:
   
   input: A=[{0,0,1}, {0,1,1}, {1,1,-2}] b=[1,4]
   output: x=[3,-2]
*/
void solveLinearSystem(std::vector<COOElement> const& A, std::vector<double> const& b, std::vector<double> &x, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Gaussian elimination with partial pivoting on rows dealt round-robin (row i lives on rank
  // i % size). Pivot rows are never moved: each step picks the largest remaining entry of the
  // column over all ranks (MPI_MAXLOC), its owner broadcasts the row, and every rank keeps the
  // broadcast rows, so all of them can back-substitute at the end.
  std::vector<double> M(N * N, 0.0), rhs(b);
  for (auto const& e : A) {
    M[e.row * N + e.column] = e.value;
  }
  std::vector<char> used(N, 0);
  std::vector<size_t> order(N);
  std::vector<double> pivots(N * (N + 1));  // step k: row order[k], then its right-hand side
  for (size_t k = 0; k < N; ++k) {
    struct { double value; int row; } best = {-1.0, -1}, chosen;
    for (size_t i = rank; i < N; i += size) {
      if (!used[i] && std::abs(M[i * N + k]) > best.value) {
        best = {std::abs(M[i * N + k]), (int)i};
      }
    }
    MPI_Allreduce(&best, &chosen, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    size_t p = chosen.row;
    double *row = &pivots[k * (N + 1)];
    if ((int)(p % size) == rank) {
      std::copy(&M[p * N], &M[p * N] + N, row);
      row[N] = rhs[p];
    }
    MPI_Bcast(row, N + 1, MPI_DOUBLE, p % size, MPI_COMM_WORLD);
    used[p] = 1;
    order[k] = p;
    for (size_t i = rank; i < N; i += size) {
      if (!used[i]) {
        double f = M[i * N + k] / row[k];
        for (size_t j = k + 1; j < N; ++j) {
          M[i * N + j] -= f * row[j];
        }
        rhs[i] -= f * row[N];
      }
    }
  }
  for (size_t k = N; k-- > 0;) {
    double const *row = &pivots[k * (N + 1)];
    double s = row[N];
    for (size_t j = k + 1; j < N; ++j) {
      s -= row[j] * x[j];
    }
    x[k] = s / row[k];
  }
}
