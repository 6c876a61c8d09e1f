struct COOElement {
   size_t row, column;
   double value;
};

/* Compute the matrix multiplication Y=AX. A is a sparse MxK matrix in COO format with sizeA elements.
   X is a sparse KxN matrix in COO format with sizeX elements. Y is a dense MxN matrix in row-major.
   Use CUDA to compute in parallel. The kernel is launched with at least sizeA threads.
   Example:

   input: A=[{0,0,-2}, {0,1,1}, {1,1,-1}] X=[{0,1,2}, {1,0,-1}]
   output: Y=[{-1,-4}, {1,0}]
*/
__global__ void spmm(const COOElement *A, size_t sizeA, const COOElement *X, size_t sizeX, double *Y, size_t M, size_t K, size_t N) {
  // Thread p takes entry p of A and adds its products with the matching entries of X; several
  // entries of A contribute to one element of Y, hence the atomics.
  size_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= sizeA) {
    return;
  }
  COOElement a = A[p];
  for (size_t q = 0; q < sizeX; ++q) {
    if (X[q].row == a.column) {
      atomicAdd(&Y[a.row * N + X[q].column], a.value * X[q].value);
    }
  }
}
