/* Set `found` to true if `val` is only in one of vectors x or y.
   Set it to false if it is in both or neither.
   Use CUDA to search in parallel. The kernel is launched with at least N threads.
   Examples:

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=7
   output: true

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=1
   output: false
*/
__global__ void xorContains(const int *x, const int *y, size_t N, int val, bool *found) {
  // Whether val was seen in x and in y, as bits of a counter beside the kernel; the last block
  // to finish stores the answer and resets both for the next launch.
  static unsigned int seen = 0;
  static unsigned int finished = 0;
  __shared__ bool lastBlock;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) {
    unsigned bits = (x[i] == val ? 1u : 0u) | (y[i] == val ? 2u : 0u);
    if (bits != 0) {
      atomicOr(&seen, bits);
      __threadfence();
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) lastBlock = atomicAdd(&finished, 1u) == gridDim.x - 1;
  __syncthreads();
  if (lastBlock && threadIdx.x == 0) {
    unsigned bits = atomicExch(&seen, 0u);
    *found = bits == 1u || bits == 2u;
    finished = 0;
  }
}
