#include <omp.h>

/* Compute the prefix sum of the vector x into output.
   Use OpenMP to compute in parallel.
   Example:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [1, 8, 12, 18, 24, 26]
*/
void prefixSum(std::vector<double> const& x, std::vector<double> &output) {
  // Two passes over one block per thread: the block sums, then each block's scan starts from
  // the sum of the blocks before it.
  size_t n = x.size();
  std::vector<double> blockSum;
  #pragma omp parallel
  {
    int nthreads = omp_get_num_threads(), tid = omp_get_thread_num();
    #pragma omp single
    blockSum.assign(nthreads + 1, 0.0);
    size_t begin = n * tid / nthreads, end = n * (tid + 1) / nthreads;
    double sum = 0.0;
    for (size_t i = begin; i < end; ++i) {
      sum += x[i];
      output[i] = sum;
    }
    blockSum[tid + 1] = sum;
    #pragma omp barrier
    double offset = 0.0;
    for (int t = 0; t <= tid; ++t) {
      offset += blockSum[t];
    }
    for (size_t i = begin; i < end; ++i) {
      output[i] += offset;
    }
  }
}
