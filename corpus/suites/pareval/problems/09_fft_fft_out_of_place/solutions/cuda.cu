/* Compute the fourier transform of x. Store the result in output.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{4,0}, {1,-2.42421}, {0,0}, {1,-0.414214}, {0,0}, {1,0.414214}, {0,0}, {1,2.41421}]
*/
__global__ void fft(const cuDoubleComplex *x, cuDoubleComplex *output, size_t N) {
  // Blocks cannot wait for each other, so block 0 transforms the whole array in output:
  // bit-reversed copy, then log2(N) butterfly stages separated by __syncthreads.
  if (blockIdx.x != 0) return;
  size_t tid = threadIdx.x, nthreads = blockDim.x;
  int bits = 0;
  while (((size_t)1 << bits) < N) bits++;
  for (size_t s = tid; s < N; s += nthreads) {
    size_t j = 0;
    for (int b = 0; b < bits; b++) j |= ((s >> b) & 1) << (bits - 1 - b);
    output[j] = x[s];
  }
  __syncthreads();
  for (size_t len = 2; len <= N; len <<= 1) {
    size_t half = len / 2;
    for (size_t t = tid; t < N / 2; t += nthreads) {
      size_t start = (t / half) * len, k = t % half;
      double angle = -2.0 * M_PI * (double)k / (double)len;
      cuDoubleComplex w = make_cuDoubleComplex(cos(angle), sin(angle));
      cuDoubleComplex u = output[start + k], v = cuCmul(w, output[start + k + half]);
      output[start + k] = cuCadd(u, v);
      output[start + k + half] = cuCsub(u, v);
    }
    __syncthreads();
  }
}
