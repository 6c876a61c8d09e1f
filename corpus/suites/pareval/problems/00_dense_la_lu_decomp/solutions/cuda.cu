/* Factorize the matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   Store the results for L and U into the original matrix A. 
   A is an NxN matrix stored in row-major.
   Use CUDA to compute in parallel. The kernel is launched on an NxN grid of threads.
   Example:

   input: [[4, 3], [6, 3]]
   output: [[4, 3], [1.5, -1.5]]
*/
__global__ void luFactorize(double *A, size_t N) {
  // Elimination steps depend on each other and blocks cannot wait for one another, so one
  // block does the whole factorisation; its threads share the rows below each pivot.
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  size_t tid = threadIdx.y * blockDim.x + threadIdx.x;
  size_t nthreads = blockDim.x * blockDim.y;
  for (size_t i = 0; i < N; i++) {
    for (size_t j = i + 1 + tid; j < N; j += nthreads) {
      double factor = A[j * N + i] / A[i * N + i];
      A[j * N + i] = factor;
      for (size_t k = i + 1; k < N; k++) {
        A[j * N + k] -= factor * A[i * N + k];
      }
    }
    __syncthreads();
  }
}
