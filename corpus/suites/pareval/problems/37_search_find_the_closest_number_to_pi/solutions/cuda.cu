/* Find the index of the value in the vector x that is closest to the math constant PI. Store the index in closestToPiIndex.
   Use M_PI for the value of PI.
   Use CUDA to search in parallel. The kernel is launched with at least N threads.
   Example:

   input: [9.18, 3.05, 7.24, 11.3, -166.49, 2.1]
   output: 1
*/
__global__ void findClosestToPi(const double *x, size_t N, size_t *closestToPiIndex) {
  // Each block finds its closest value in shared memory; then one thread per block merges it
  // into the result under a spin lock (the static best distance lives beside the kernel and
  // is reset by the last block, so the kernel can be launched again).
  static double bestDistance = 1.0e308;
  static int lock = 0;
  static unsigned int finished = 0;
  __shared__ double distance[1024];
  __shared__ size_t index[1024];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  distance[threadIdx.x] = i < N ? fabs(x[i] - M_PI) : 1.0e308;
  index[threadIdx.x] = i;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned k = 2 * stride * threadIdx.x;
    if (k + stride < blockDim.x) {
      double d = distance[k + stride];
      if (d < distance[k] || (d == distance[k] && index[k + stride] < index[k])) {
        distance[k] = d;
        index[k] = index[k + stride];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    while (atomicCAS(&lock, 0, 1) != 0) {
    }
    __threadfence();
    volatile double *best = &bestDistance;
    volatile size_t *result = closestToPiIndex;
    if (distance[0] < *best || (distance[0] == *best && index[0] < *result)) {
      *best = distance[0];
      *result = index[0];
    }
    __threadfence();
    atomicExch(&lock, 0);
    if (atomicAdd(&finished, 1u) == gridDim.x - 1) {
      bestDistance = 1.0e308;
      finished = 0;
    }
  }
}
