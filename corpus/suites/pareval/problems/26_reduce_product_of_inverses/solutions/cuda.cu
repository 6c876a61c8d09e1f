/* Compute the product of the vector x with every odd indexed element inverted.
   i.e. x_0 * 1/x_1 * x_2 * 1/x_3 * x_4 ...
   Store the result in product.
   Use CUDA to compute product in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [4, 2, 10, 4, 5]
   output: 25
*/
__global__ void productWithInverses(const double *x, size_t N, double *product) {
  // Products of the block in shared memory, then one atomic multiply per block (a CAS loop:
  // CUDA has no atomic multiply). product arrives as 1.
  __shared__ double partial[1024];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < N ? (i % 2 == 0 ? x[i] : 1.0 / x[i]) : 1.0;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned k = 2 * stride * threadIdx.x;
    if (k + stride < blockDim.x) partial[k] *= partial[k + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    unsigned long long *address = reinterpret_cast<unsigned long long *>(product);
    unsigned long long seen = *address, assumed;
    do {
      assumed = seen;
      double updated = __longlong_as_double(assumed) * partial[0];
      seen = atomicCAS(address, assumed, __double_as_longlong(updated));
    } while (seen != assumed);
  }
}
