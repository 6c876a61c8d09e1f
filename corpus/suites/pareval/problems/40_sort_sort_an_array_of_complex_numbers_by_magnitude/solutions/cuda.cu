/* Sort the vector x of complex numbers by their magnitude in ascending order.
   Use CUDA to sort in parallel. The kernel is launched with at least as many threads as elements in x.
   Example:
   
   input: [3.0-1.0i, 4.5+2.1i, 0.0-1.0i, 1.0-0.0i, 0.5+0.5i]
   output: [0.5+0.5i, 0.0-1.0i, 1.0-0.0i, 3.0-1.0i, 4.5+2.1i]
*/
__global__ void sortComplexByMagnitude(cuDoubleComplex *x, size_t N) {
  // One block sorts the whole array with Batcher's odd-even merge sort: a sorting network for
  // any N whose comparators within one stage are disjoint, so a stage needs no locking and
  // __syncthreads() separates the stages. The other blocks have nothing to do.
  if (blockIdx.x != 0) {
    return;
  }
  for (size_t p = 1; p < N; p <<= 1) {
    for (size_t k = p; k >= 1; k >>= 1) {
      size_t j0 = k % p;
      for (size_t a = threadIdx.x; a + k < N; a += blockDim.x) {
        if (a >= j0 && (a - j0) % (2 * k) < k && a / (2 * p) == (a + k) / (2 * p)) {
          cuDoubleComplex u = x[a], v = x[a + k];
          if (cuCabs(v) < cuCabs(u)) {
            x[a] = v;
            x[a + k] = u;
          }
        }
      }
      __syncthreads();
    }
  }
}
