/* Count the number of pixels in image with each grayscale intensity.
   The vector `image` is a grayscale image with values 0-255.
   Store the results in `bins`.
   Use CUDA to count in parallel. The kernel is launched with at least N threads.
   Example:
   
   input: image=[2, 116, 201, 11, 92, 92, 201, 4, 2]
   output: [0, 0, 2, 0, 1, ...]
*/
__global__ void pixelCounts(const int *image, size_t N, size_t bins[256]) {
  // Count in shared memory first: 256 bins per block, so few global atomics.
  __shared__ unsigned long long local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&local[image[i]], 1ULL);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (local[b] != 0) atomicAdd((unsigned long long *)&bins[b], local[b]);
  }
}
