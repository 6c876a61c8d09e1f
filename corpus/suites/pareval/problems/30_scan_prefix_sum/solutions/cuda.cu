/* Compute the prefix sum of the vector x into output.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as elements in x.
   Example:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [1, 8, 12, 18, 24, 26]
*/
__global__ void prefixSum(const double *x, double *output, size_t N) {
  // A chained scan in one launch: blocks take consecutive tickets, scan their tile in shared
  // memory, wait for the previous ticket's inclusive sum, add it and publish their own.
  // Taking tickets (rather than blockIdx) guarantees the block waited on is already running.
  // The statics are reset by the last block, so the kernel can be launched again.
  static unsigned int ticket = 0;
  static unsigned int finished = 0;
  static double inclusive[1 << 20];   // up to 2^20 blocks
  static volatile int ready[1 << 20];
  __shared__ double tile[1024];
  __shared__ unsigned int block;
  __shared__ double carry;
  __shared__ bool lastBlock;
  if (threadIdx.x == 0) block = atomicAdd(&ticket, 1u);
  __syncthreads();
  size_t i = (size_t)block * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < N ? x[i] : 0.0;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    double left = threadIdx.x >= stride ? tile[threadIdx.x - stride] : 0.0;
    __syncthreads();
    tile[threadIdx.x] += left;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double before = 0.0;
    if (block > 0) {
      while (ready[block - 1] == 0) {
      }
      __threadfence();
      before = *(volatile double *)&inclusive[block - 1];
    }
    *(volatile double *)&inclusive[block] = before + tile[blockDim.x - 1];
    __threadfence();
    ready[block] = 1;
    carry = before;
  }
  __syncthreads();
  if (i < N) output[i] = tile[threadIdx.x] + carry;
  if (threadIdx.x == 0) lastBlock = atomicAdd(&finished, 1u) == gridDim.x - 1;
  __syncthreads();
  if (lastBlock) {
    // Every block has read what it waited for: clear the flags for the next launch.
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) ready[b] = 0;
    if (threadIdx.x == 0) {
      ticket = 0;
      finished = 0;
    }
  }
}
