/* Compute the discrete fourier transform of x. Store the result in output.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [1, 4, 9, 16]
   output: [30+0i, -8-12i, -10-0i, -8+12i]
*/
__global__ void dft(const double *x, cuDoubleComplex *output, size_t N) {
  size_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < N) {
    double re = 0.0, im = 0.0;
    for (size_t j = 0; j < N; ++j) {
      double angle = -2.0 * M_PI * (double)((j * k) % N) / (double)N;
      re += x[j] * cos(angle);
      im += x[j] * sin(angle);
    }
    output[k] = make_cuDoubleComplex(re, im);
  }
}
