/* Replace every element of the vector x with 1-1/x.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as elements in x.
   Example:

   input: [2, 4, 1, 12, -2]
   output: [0.5, 0.75, 0, 0.91666666, 1.5]
*/
__global__ void oneMinusInverse(double *x, size_t N) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    x[i] = 1.0 - 1.0 / x[i];
  }
}
