#include <omp.h>

/* Vector x contains values between 0 and 100, inclusive. Count the number of
   values in [0,10), [10, 20), [20, 30), ... and store the counts in `bins`.
   Use OpenMP to compute in parallel.
   Example:

   input: [7, 32, 95, 12, 39, 32, 11, 71, 70, 66]
   output: [1, 2, 0, 3, 0, 0, 1, 2, 0, 1]
*/
void binsBy10Count(std::vector<double> const& x, std::array<size_t, 10> &bins) {
  size_t counts[10] = {0};
  #pragma omp parallel for reduction(+:counts[:10])
  for (size_t i = 0; i < x.size(); ++i) {
    size_t bin = static_cast<size_t>(x[i] / 10);
    if (bin > 9) bin = 9;  // 100 belongs to the last bin
    counts[bin]++;
  }
  for (int b = 0; b < 10; ++b) {
    bins[b] = counts[b];
  }
}
