#include <omp.h>

/* Replace the i-th element of the vector x with the minimum value from indices 0 through i.
   Use OpenMP to compute in parallel.
   Examples:

   input: [8, 6, -1, 7, 3, 4, 4]
   output: [8, 6, -1, -1, -1, -1, -1]

   input: [5, 4, 6, 4, 3, 6, 1, 1]
   output: [5, 4, 4, 4, 3, 3, 1, 1]
*/
void partialMinimums(std::vector<float> &x) {
  // One block per thread: each thread takes its block's minimum, then rescans its block
  // starting from the minimum of all blocks before it.
  size_t n = x.size();
  std::vector<float> blockMin;
  #pragma omp parallel
  {
    int nthreads = omp_get_num_threads(), tid = omp_get_thread_num();
    #pragma omp single
    blockMin.assign(nthreads, std::numeric_limits<float>::infinity());
    size_t begin = n * tid / nthreads, end = n * (tid + 1) / nthreads;
    float m = std::numeric_limits<float>::infinity();
    for (size_t i = begin; i < end; ++i) {
      m = std::min(m, x[i]);
    }
    blockMin[tid] = m;
    #pragma omp barrier
    float running = std::numeric_limits<float>::infinity();
    for (int t = 0; t < tid; ++t) {
      running = std::min(running, blockMin[t]);
    }
    for (size_t i = begin; i < end; ++i) {
      running = std::min(running, x[i]);
      x[i] = running;
    }
  }
}
