/* Compute one iteration of a 3-point 1D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its two neighbors and stored in the corresponding element of `output`.
   i.e. output[i] = (input[i-1]+input[i]+input[i+1])/3
   Replace with 0 when reading past the boundaries of `input`.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [9, -6, -1, 2, 3]
   output: [1, 2/3, -5/3, 4/3, 5/3]
*/
__global__ void jacobi1D(const double *input, double *output, size_t N) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) {
    return;
  }
  double left = i > 0 ? input[i - 1] : 0.0;
  double right = i + 1 < N ? input[i + 1] : 0.0;
  output[i] = (left + input[i] + right) / 3;
}
