#include <omp.h>

/* Sort the vector x in ascending order ignoring elements with value 0.
   Leave zero valued elements in-place. 
	 Use OpenMP to sort x in parallel. 
   Example:

   input: [8, 4, 0, 9, 8, 0, 1, -1, 7]
   output: [-1, 1, 0, 4, 7, 0, 8, 8, 9]
*/
void sortIgnoreZero(std::vector<int> &x) {
  long n = x.size();
  std::vector<long> offsets;
  std::vector<int> values;
  int parts = 1;
  #pragma omp parallel
  {
    #pragma omp single
    {
      parts = omp_get_num_threads();
      offsets.assign(parts + 1, 0);
    }
    int t = omp_get_thread_num();
    long lo = n * t / parts, hi = n * (t + 1) / parts;
    long mine = 0;
    for (long i = lo; i < hi; ++i) {
      mine += x[i] != 0;
    }
    offsets[t + 1] = mine;
    #pragma omp barrier
    #pragma omp single
    {
      for (int p = 0; p < parts; ++p) {
        offsets[p + 1] += offsets[p];
      }
      values.resize(offsets[parts]);
    }
    // Compact the non-zero values, sort each thread's share, then merge the runs pairwise.
    long at = offsets[t];
    for (long i = lo; i < hi; ++i) {
      if (x[i] != 0) {
        values[at++] = x[i];
      }
    }
    std::sort(values.begin() + offsets[t], values.begin() + offsets[t + 1]);
    for (int width = 1; width < parts; width *= 2) {
      #pragma omp barrier
      if (t % (2 * width) == 0 && t + width < parts) {
        std::inplace_merge(values.begin() + offsets[t], values.begin() + offsets[t + width],
                           values.begin() + offsets[std::min(t + 2 * width, parts)]);
      }
    }
    #pragma omp barrier
    // Write the sorted values back into the non-zero slots, each thread over its own range.
    at = offsets[t];
    for (long i = lo; i < hi; ++i) {
      if (x[i] != 0) {
        x[i] = values[at++];
      }
    }
  }
}
