#include <omp.h>

/* Compute the reverse prefix sum of the vector x into output.
   Use OpenMP to compute in parallel.
   Examples:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [2, 8, 14, 18, 25, 26]

   input: [3, 3, 7, 1, -2]
   output: [-2, -1, 6, 9, 12]
*/
void reversePrefixSum(std::vector<int> const& x, std::vector<int> &output) {
  // output is the prefix sum of x reversed. One block of output per thread: the block sums,
  // then each block's scan starts from the sum of the blocks before it.
  size_t n = x.size();
  std::vector<int> blockSum;
  #pragma omp parallel
  {
    int nthreads = omp_get_num_threads(), tid = omp_get_thread_num();
    #pragma omp single
    blockSum.assign(nthreads + 1, 0);
    size_t begin = n * tid / nthreads, end = n * (tid + 1) / nthreads;
    int sum = 0;
    for (size_t i = begin; i < end; ++i) {
      sum += x[n - 1 - i];
      output[i] = sum;
    }
    blockSum[tid + 1] = sum;
    #pragma omp barrier
    int offset = 0;
    for (int t = 0; t <= tid; ++t) {
      offset += blockSum[t];
    }
    for (size_t i = begin; i < end; ++i) {
      output[i] += offset;
    }
  }
}
