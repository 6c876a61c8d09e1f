struct COOElement {
   size_t row, column;
   double value;
};

/* Solve the sparse linear system Ax=b for x.
   A is a sparse NxN matrix in COO format with sizeA elements. x and b are dense vectors with N elements.
   Use CUDA to compute in parallel. The kernel is launched with at least sizeA threads.
   Example:
   
   input: A=[{0,0,1}, {0,1,1}, {1,1,-2}] b=[1,4]
   output: x=[3,-2]
*/
__global__ void solveLinearSystem(const COOElement *A, size_t sizeA, const double *b, double *x, size_t N) {
  // One block (the others return) runs dense Gaussian elimination with partial pivoting in a
  // scratch matrix on the device heap; the updates of a step are spread over its threads.
  if (blockIdx.x != 0) {
    return;
  }
  __shared__ double *M, *rhs;
  __shared__ size_t pivot;
  if (threadIdx.x == 0) {
    M = (double *)malloc((N * N + N) * sizeof(double));
    rhs = M == nullptr ? nullptr : M + N * N;
  }
  __syncthreads();
  if (M == nullptr) {
    // No room on the device heap: report failure loudly rather than a plausible wrong answer.
    for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
      x[i] = nan("");
    }
    return;
  }
  for (size_t e = threadIdx.x; e < N * N; e += blockDim.x) {
    M[e] = 0.0;
  }
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
    rhs[i] = b[i];
  }
  __syncthreads();
  for (size_t e = threadIdx.x; e < sizeA; e += blockDim.x) {
    M[A[e].row * N + A[e].column] = A[e].value;
  }
  __syncthreads();
  for (size_t k = 0; k < N; ++k) {
    if (threadIdx.x == 0) {
      size_t p = k;
      for (size_t i = k + 1; i < N; ++i) {
        if (fabs(M[i * N + k]) > fabs(M[p * N + k])) {
          p = i;
        }
      }
      pivot = p;
    }
    __syncthreads();
    if (pivot != k) {
      for (size_t j = k + threadIdx.x; j < N; j += blockDim.x) {
        double t = M[k * N + j];
        M[k * N + j] = M[pivot * N + j];
        M[pivot * N + j] = t;
      }
      if (threadIdx.x == 0) {
        double t = rhs[k];
        rhs[k] = rhs[pivot];
        rhs[pivot] = t;
      }
    }
    __syncthreads();
    size_t rows = N - k - 1, cols = N - k - 1;
    for (size_t e = threadIdx.x; e < rows * cols; e += blockDim.x) {
      size_t i = k + 1 + e / cols, j = k + 1 + e % cols;
      M[i * N + j] -= M[i * N + k] / M[k * N + k] * M[k * N + j];
    }
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      rhs[i] -= M[i * N + k] / M[k * N + k] * rhs[k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    for (size_t i = N; i-- > 0;) {
      double s = rhs[i];
      for (size_t j = i + 1; j < N; ++j) {
        s -= M[i * N + j] * x[j];
      }
      x[i] = s / M[i * N + i];
    }
    free(M);
  }
}
