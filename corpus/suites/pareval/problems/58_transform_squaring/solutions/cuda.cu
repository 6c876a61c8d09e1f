/* Replace every element of x with the square of its value.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [5, 1, 2, -4, 8]
   output: [25, 1, 4, 16, 64]
*/
__global__ void squareEach(int *x, size_t N) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    x[i] = x[i] * x[i];
  }
}
