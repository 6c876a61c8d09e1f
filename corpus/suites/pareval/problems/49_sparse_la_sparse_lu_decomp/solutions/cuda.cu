struct COOElement {
   size_t row, column;
   double value;
};

/* Factorize the sparse matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   A is a sparse NxN matrix stored in COO format with sizeA elements.
   Use CUDA to compute in parallel. The kernel is launched with at least sizeA threads.
   Example:

   input: A=[{0,0,4}, {0,1,3}, {1,0,6}, {1,1,3}]
   output: L=[{0,0,1},{1,0,1.5}, {1,1,1}] U=[{0,0,4}, {0,1,3}, {1,1,-1.5}]
*/
__global__ void luFactorize(const COOElement *A, size_t sizeA, double *L, double *U, size_t N) {
  // One block (the others return) scatters A into U and eliminates in place, column by column;
  // the multipliers go to L. __syncthreads() separates the steps.
  if (blockIdx.x != 0) {
    return;
  }
  for (size_t e = threadIdx.x; e < N * N; e += blockDim.x) {
    U[e] = 0.0;
    L[e] = 0.0;
  }
  __syncthreads();
  for (size_t e = threadIdx.x; e < sizeA; e += blockDim.x) {
    U[A[e].row * N + A[e].column] = A[e].value;
  }
  __syncthreads();
  for (size_t k = 0; k < N; ++k) {
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      L[i * N + k] = U[i * N + k] / U[k * N + k];
    }
    __syncthreads();
    size_t rows = N - k - 1, cols = N - k;
    for (size_t e = threadIdx.x; e < rows * cols; e += blockDim.x) {
      size_t i = k + 1 + e / cols, j = k + e % cols;
      U[i * N + j] = j == k ? 0.0 : U[i * N + j] - L[i * N + k] * U[k * N + j];
    }
    __syncthreads();
  }
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
    L[i * N + i] = 1.0;
  }
}
