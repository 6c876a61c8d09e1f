/* Replace the i-th element of the vector x with the minimum value from indices 0 through i.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Examples:

   input: [8, 6, -1, 7, 3, 4, 4]
   output: [8, 6, -1, -1, -1, -1, -1]

   input: [5, 4, 6, 4, 3, 6, 1, 1]
   output: [5, 4, 4, 4, 3, 3, 1, 1]
*/
__global__ void partialMinimums(float *x, size_t N) {
  // A chained scan in one launch: blocks take consecutive tickets, take the running minimum
  // of their tile in shared memory, wait for the previous ticket's minimum so far, fold it in
  // and publish their own. Taking tickets (rather than blockIdx) guarantees the block waited
  // on is already running. The statics are reset by the last block, so the kernel can be
  // launched again.
  static unsigned int ticket = 0;
  static unsigned int finished = 0;
  static float inclusive[1 << 20];   // up to 2^20 blocks
  static volatile int ready[1 << 20];
  __shared__ float tile[1024];
  __shared__ unsigned int block;
  __shared__ float carry;
  __shared__ bool lastBlock;
  if (threadIdx.x == 0) block = atomicAdd(&ticket, 1u);
  __syncthreads();
  size_t i = (size_t)block * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < N ? x[i] : INFINITY;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    float left = threadIdx.x >= stride ? tile[threadIdx.x - stride] : INFINITY;
    __syncthreads();
    tile[threadIdx.x] = fminf(tile[threadIdx.x], left);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float before = INFINITY;
    if (block > 0) {
      while (ready[block - 1] == 0) {
      }
      __threadfence();
      before = *(volatile float *)&inclusive[block - 1];
    }
    *(volatile float *)&inclusive[block] = fminf(before, tile[blockDim.x - 1]);
    __threadfence();
    ready[block] = 1;
    carry = before;
  }
  __syncthreads();
  if (i < N) x[i] = fminf(tile[threadIdx.x], carry);
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
