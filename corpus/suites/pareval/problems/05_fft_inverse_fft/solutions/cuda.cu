/* Compute the inverse fourier transform of x in-place.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:
   
   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{0.5,0}, {0.125,0.301777}, {0,-0}, {0.125,0.0517767}, {0,-0}, {0.125,-0.0517767}, {0,-0}, {0.125,-0.301777}]
*/
__global__ void ifft(cuDoubleComplex *x, size_t N) {
  // Blocks cannot wait for each other, so block 0 transforms the whole array: conjugate,
  // bit-reverse, log2(N) butterfly stages separated by __syncthreads, conjugate and scale.
  if (blockIdx.x != 0) return;
  size_t tid = threadIdx.x, nthreads = blockDim.x;
  int bits = 0;
  while (((size_t)1 << bits) < N) bits++;
  for (size_t i = tid; i < N; i += nthreads) {
    size_t j = 0;
    for (int b = 0; b < bits; b++) j |= ((i >> b) & 1) << (bits - 1 - b);
    if (i < j) {
      cuDoubleComplex a = cuConj(x[i]), c = cuConj(x[j]);
      x[i] = c;
      x[j] = a;
    } else if (i == j) {
      x[i] = cuConj(x[i]);
    }
  }
  __syncthreads();
  for (size_t len = 2; len <= N; len <<= 1) {
    size_t half = len / 2;
    for (size_t t = tid; t < N / 2; t += nthreads) {
      size_t start = (t / half) * len, k = t % half;
      double angle = -2.0 * M_PI * (double)k / (double)len;
      cuDoubleComplex w = make_cuDoubleComplex(cos(angle), sin(angle));
      cuDoubleComplex u = x[start + k], v = cuCmul(w, x[start + k + half]);
      x[start + k] = cuCadd(u, v);
      x[start + k + half] = cuCsub(u, v);
    }
    __syncthreads();
  }
  for (size_t i = tid; i < N; i += nthreads) {
    cuDoubleComplex v = cuConj(x[i]);
    x[i] = make_cuDoubleComplex(cuCreal(v) / (double)N, cuCimag(v) / (double)N);
  }
}
