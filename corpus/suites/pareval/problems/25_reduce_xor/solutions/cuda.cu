/* Compute the logical XOR reduction of the vector of bools x. Store the result in output.
   Use CUDA to reduce in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [false, false, false, true]
   output: true
*/
__global__ void reduceLogicalXOR(const bool *x, size_t N, bool *output) {
  // Global state of this kernel: the parity so far and how many blocks have finished; the last
  // block to finish stores the result and resets both for the next launch.
  static unsigned int xorParity = 0;
  static unsigned int blocksDone = 0;
  __shared__ bool last;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  bool value = i < N && x[i];
  unsigned ballot = __ballot_sync(__activemask(), value);
  if ((threadIdx.x & 31) == 0 && (__popc(ballot) & 1)) {
    atomicXor(&xorParity, 1u);
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&blocksDone, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    *output = atomicExch(&xorParity, 0u) != 0;
    blocksDone = 0;
  }
}
