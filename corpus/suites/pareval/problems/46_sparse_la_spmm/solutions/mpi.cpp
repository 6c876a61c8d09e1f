#include <mpi.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Compute the matrix multiplication Y=AX. A is a sparse MxK matrix in COO format.
   X is a sparse KxN matrix in COO format. Y is a dense MxN matrix in row-major.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A and X. Store the result in Y on rank 0.
   Example:

   input: A=[{0,0,-2}, {0,1,1}, {1,1,-1}] X=[{0,1,2}, {1,0,-1}]
   output: Y=[{-1,-4}, {1,0}]
*/
void spmm(std::vector<COOElement> const& A, std::vector<COOElement> const& X, std::vector<double> &Y, size_t M, size_t K, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank multiplies a block of A's entries by X into a zeroed MxN matrix; the sum over
  // ranks lands in Y on rank 0.
  std::vector<size_t> start(K + 1, 0);
  for (auto const& e : X) {
    ++start[e.row + 1];
  }
  for (size_t k = 0; k < K; ++k) {
    start[k + 1] += start[k];
  }
  std::vector<COOElement> byRow(X.size());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (auto const& e : X) {
    byRow[next[e.row]++] = e;
  }
  std::vector<double> partial(M * N, 0.0);
  size_t begin = A.size() * rank / size, end = A.size() * (rank + 1) / size;
  for (size_t p = begin; p < end; ++p) {
    COOElement const& a = A[p];
    for (size_t q = start[a.column]; q < start[a.column + 1]; ++q) {
      partial[a.row * N + byRow[q].column] += a.value * byRow[q].value;
    }
  }
  MPI_Reduce(partial.data(), Y.data(), M * N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
