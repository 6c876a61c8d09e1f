struct Result {
   int startTime, duration;
   float value;
};

/* Sort vector of Result structs by start time in ascending order.
   Use CUDA to sort in parallel. The kernel is launched with at least as many threads as there are elements.
   Example:
   
   input: [{startTime=8, duration=4, value=-1.22}, {startTime=2, duration=10, value=1.0}, {startTime=10, duration=3, value=0.0}]
   output: [{startTime=2, duration=10, value=1.0}, {startTime=8, duration=4, value=-1.22}, {startTime=10, duration=3, value=0.0}]
*/
__global__ void sortByStartTime(Result *results, size_t N) {
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
          Result u = results[a], v = results[a + k];
          if (v.startTime < u.startTime) {
            results[a] = v;
            results[a + k] = u;
          }
        }
      }
      __syncthreads();
    }
  }
}
