/* Compute the sum of the minimum value at each index of vectors x and y for all indices.
   i.e. sum = min(x_0, y_0) + min(x_1, y_1) + min(x_2, y_2) + ...
   Store the result in sum.
   Use CUDA to sum in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: x=[3, 4, 0, 2, 3], y=[2, 5, 3, 1, 7]
   output: 10
*/
__global__ void sumOfMinimumElements(const double *x, const double *y, size_t N, double *sum) {
  // Each block sums its minima in shared memory and adds the block's sum atomically.
  __shared__ double partial[1024];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < N ? fmin(x[i], y[i]) : 0.0;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned k = 2 * stride * threadIdx.x;
    if (k + stride < blockDim.x) partial[k] += partial[k + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}
