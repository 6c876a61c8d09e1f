#include <mpi.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Compute y = alpha*A*x + beta*y where alpha and beta are scalars, x and y are vectors,
   and A is a sparse matrix stored in COO format.
   A has dimensions MxN, x has N values, and y has M values.
   Use MPI to parallelize. Assume MPI has already been initialized.
   Every rank has a complete copy of A, x, and y. Store the result in y on rank 0.
   Example:

   input: alpha=0.5 beta=1.0 A=[{0,1,3}, {1,0,-1}] x=[-4, 2] y=[-1,1]
   output: y=[2, 3]
*/
void spmv(double alpha, std::vector<COOElement> const& A, std::vector<double> const& x, double beta, std::vector<double> &y, size_t M, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Each rank multiplies a block of the entries; the partial products are summed on rank 0.
  size_t nnz = A.size();
  size_t begin = nnz * rank / size, end = nnz * (rank + 1) / size;
  std::vector<double> partial(M, 0.0), total(rank == 0 ? M : 0);
  for (size_t e = begin; e < end; ++e) {
    partial[A[e].row] += A[e].value * x[A[e].column];
  }
  MPI_Reduce(partial.data(), total.data(), M, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (size_t i = 0; i < M; ++i) {
      y[i] = alpha * total[i] + beta * y[i];
    }
  }
}
