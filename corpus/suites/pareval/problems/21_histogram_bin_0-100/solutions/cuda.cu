/* Vector x contains values between 0 and 100, inclusive. Count the number of
   values in [0,10), [10, 20), [20, 30), ... and store the counts in `bins`.
   Use CUDA to compute in parallel. The kernel is initialized with at least as many threads as values in x.
   Example:

   input: [7, 32, 95, 12, 39, 32, 11, 71, 70, 66]
   output: [1, 2, 0, 3, 0, 0, 1, 2, 0, 1]
*/
__global__ void binsBy10Count(const double *x, size_t N, size_t bins[10]) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) {
    size_t bin = static_cast<size_t>(x[i] / 10);
    if (bin > 9) bin = 9;  // 100 belongs to the last bin
    atomicAdd((unsigned long long *)&bins[bin], 1ULL);
  }
}
