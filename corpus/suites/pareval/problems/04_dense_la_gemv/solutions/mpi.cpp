#include <mpi.h>

/* Multiply the matrix A by the vector x. Store the results in the vector y.
   A is an MxN matrix stored in row-major, x has N elements, and y has M elements.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A and x. Store the result in y on rank 0.
   Example:

   input: A=[[1, -1, 2], [0, -3, 1]] x=[2, 1, 0]
   output: y=[1, -3]
*/
void gemv(std::vector<double> const& A, std::vector<double> const& x, std::vector<double> &y, size_t M, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = M / size + (r < (int)(M % size) ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<double> local(counts[rank]);
  for (int i = 0; i < counts[rank]; ++i) {
    size_t row = displs[rank] + i;
    double sum = 0.0;
    for (size_t j = 0; j < N; ++j) {
      sum += A[row * N + j] * x[j];
    }
    local[i] = sum;
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, y.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
