/* Compute the prefix sum array of the vector x and compute its sum. Store the result in sum.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [-7, 2, 1, 9, 4, 8]
   output: 15
*/
__global__ void sumOfPrefixSum(const double *x, size_t N, double *sum) {
  // x[i] is part of the prefix sums i, ..., N-1: it counts N - i times. Each block adds its
  // share in shared memory, then once atomically.
  __shared__ double partial[1024];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < N ? x[i] * (double)(N - i) : 0.0;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned k = 2 * stride * threadIdx.x;
    if (k + stride < blockDim.x) partial[k] += partial[k + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}
