/* Compute the largest sum of any contiguous subarray in the vector x.
   i.e. if x=[−2, 1, −3, 4, −1, 2, 1, −5, 4] then [4, −1, 2, 1] is the contiguous
   subarray with the largest sum of 6.
   Store the result in sum.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [−2, 1, −3, 4, −1, 2, 1, −5, 4]
   output: 6
*/
__global__ void maximumSubarray(const int *x, size_t N, int *sum) {
  // Thread i finds the best subarray starting at i (quadratic work, like the reference, but
  // N threads at a time); one atomicMax per thread. sum arrives as INT_MIN.
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) {
    int running = 0, best = INT_MIN;
    for (size_t j = i; j < N; ++j) {
      running += x[j];
      best = max(best, running);
    }
    atomicMax(sum, best);
  }
}
