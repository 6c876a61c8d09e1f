#include <omp.h>

/* For each value in the vector x compute its index in the sorted vector.
   Store the results in `ranks`.
   Use OpenMP to compute in parallel.
   Examples:

   input: [3.1, 2.8, 9.1, 0.4, 3.14]
   output: [2, 1, 4, 0, 3]
 
   input: [100, 7.6, 16.1, 18, 7.6]
   output: [4, 0, 1, 2, 3]
*/
void ranks(std::vector<float> const& x, std::vector<size_t> &ranks) {
  size_t n = x.size();
  // Sort (value, index) pairs: chunks sorted in parallel, then merged pairwise.
  std::vector<std::pair<float, size_t>> pairs(n);
  #pragma omp parallel for
  for (size_t i = 0; i < n; ++i) {
    pairs[i] = {x[i], i};
  }
  int chunks = omp_get_max_threads();
  std::vector<size_t> bounds(chunks + 1);
  for (int c = 0; c <= chunks; ++c) {
    bounds[c] = n * c / chunks;
  }
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    std::sort(pairs.begin() + bounds[c], pairs.begin() + bounds[c + 1]);
  }
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      if (c + width < chunks) {
        std::inplace_merge(pairs.begin() + bounds[c], pairs.begin() + bounds[c + width],
                           pairs.begin() + bounds[std::min(c + 2 * width, chunks)]);
      }
    }
  }
  #pragma omp parallel for
  for (size_t s = 0; s < n; ++s) {
    ranks[pairs[s].second] = s;
  }
}
