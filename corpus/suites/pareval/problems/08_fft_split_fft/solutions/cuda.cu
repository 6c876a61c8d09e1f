/* Compute the fourier transform of x. Store real part of results in r and imaginary in i.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: r: [4, 1, 0, 1, 0, 1, 0, 1] i: [0, -2.41421, 0, -0.414214, 0, 0.414214, 0, 2.41421]
*/
__global__ void fft(const cuDoubleComplex *x, double *r, double *i, size_t N) {
  // Blocks cannot wait for each other, so block 0 transforms the whole array, using r and i
  // as the work space: bit-reversed copy, then log2(N) butterfly stages separated by
  // __syncthreads.
  if (blockIdx.x != 0) return;
  size_t tid = threadIdx.x, nthreads = blockDim.x;
  int bits = 0;
  while (((size_t)1 << bits) < N) bits++;
  for (size_t s = tid; s < N; s += nthreads) {
    size_t j = 0;
    for (int b = 0; b < bits; b++) j |= ((s >> b) & 1) << (bits - 1 - b);
    r[j] = cuCreal(x[s]);
    i[j] = cuCimag(x[s]);
  }
  __syncthreads();
  for (size_t len = 2; len <= N; len <<= 1) {
    size_t half = len / 2;
    for (size_t t = tid; t < N / 2; t += nthreads) {
      size_t a = (t / half) * len + t % half, b = a + half;
      double angle = -2.0 * M_PI * (double)(t % half) / (double)len;
      double wr = cos(angle), wi = sin(angle);
      double vr = wr * r[b] - wi * i[b], vi = wr * i[b] + wi * r[b];
      double ur = r[a], ui = i[a];
      r[a] = ur + vr;
      i[a] = ui + vi;
      r[b] = ur - vr;
      i[b] = ui - vi;
    }
    __syncthreads();
  }
}
