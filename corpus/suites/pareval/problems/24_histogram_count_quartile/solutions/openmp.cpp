#include <omp.h>

/* Count the number of doubles in the vector x that have a fractional part 
   in [0, 0.25), [0.25, 0.5), [0.5, 0.75), and [0.75, 1). Store the counts in `bins`.
   Use OpenMP to compute in parallel.
   Examples:

   input: [7.8, 4.2, 9.1, 7.6, 0.27, 1.5, 3.8]
   output: [2, 1, 2, 2]

   input: [1.9, 0.2, 0.6, 10.1, 7.4]
   output: [2, 1, 1, 1]
*/
void countQuartiles(std::vector<double> const& x, std::array<size_t, 4> &bins) {
  size_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  #pragma omp parallel for reduction(+:b0, b1, b2, b3)
  for (size_t i = 0; i < x.size(); ++i) {
    double frac = x[i] - std::floor(x[i]);
    if (frac < 0.25) {
      b0++;
    } else if (frac < 0.5) {
      b1++;
    } else if (frac < 0.75) {
      b2++;
    } else {
      b3++;
    }
  }
  bins = {b0, b1, b2, b3};
}
