/* Compute the average of the vector x. Store the result in average.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Examples:
   
	 input: [1, 8, 4, 5, 1]
   output: 3.8

   input: [2, 2, 2, 3]
   output: 2.25
*/
__global__ void average(const double *x, size_t N, double *average) {
  // Each block sums its values in shared memory and adds its share of the mean atomically.
  __shared__ double partial[1024];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < N ? x[i] : 0.0;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned k = 2 * stride * threadIdx.x;
    if (k + stride < blockDim.x) partial[k] += partial[k + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(average, partial[0] / N);
}
