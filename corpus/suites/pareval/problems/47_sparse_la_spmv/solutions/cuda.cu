struct COOElement {
   size_t row, column;
   double value;
};

/* Compute y = alpha*A*x + beta*y where alpha and beta are scalars, x and y are vectors,
   and A is a sparse matrix stored in COO format with sizeA elements.
   A has dimensions MxN, x has N values, and y has M values.
   Use CUDA to parallelize. The kernel will be launched with at least sizeA threads.
   Example:

   input: alpha=0.5 beta=1.0 A=[{0,1,3}, {1,0,-1}] x=[-4, 2] y=[-1,1]
   output: y=[2, 3]
*/
__global__ void spmv(double alpha, const COOElement *A, size_t sizeA, const double *x, double beta, double *y, size_t M, size_t N) {
  // A is sorted by row: each thread finds the entries of its rows by binary search and writes
  // whole rows, so no two threads touch the same y[i] (grid-stride, since M may exceed sizeA).
  for (size_t row = blockIdx.x * blockDim.x + threadIdx.x; row < M; row += (size_t)gridDim.x * blockDim.x) {
    size_t lo = 0, hi = sizeA;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (A[mid].row < row) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    double sum = 0.0;
    for (size_t e = lo; e < sizeA && A[e].row == row; ++e) {
      sum += A[e].value * x[A[e].column];
    }
    y[row] = alpha * sum + beta * y[row];
  }
}
