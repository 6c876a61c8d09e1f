#include <omp.h>

/* Sort the vector x of complex numbers by their magnitude in ascending order.
   Use OpenMP to sort in parallel.
   Example:
   
   input: [3.0-1.0i, 4.5+2.1i, 0.0-1.0i, 1.0-0.0i, 0.5+0.5i]
   output: [0.5+0.5i, 0.0-1.0i, 1.0-0.0i, 3.0-1.0i, 4.5+2.1i]
*/
void sortComplexByMagnitude(std::vector<std::complex<double>> &x) {
  auto byMagnitude = [](std::complex<double> const& a, std::complex<double> const& b) {
    return std::abs(a) < std::abs(b);
  };
  int chunks = omp_get_max_threads();
  size_t n = x.size();
  std::vector<size_t> bounds(chunks + 1);
  for (int c = 0; c <= chunks; ++c) {
    bounds[c] = n * c / chunks;
  }
  // Sort one chunk per thread, then merge neighbouring runs pairwise, doubling their width.
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    std::sort(x.begin() + bounds[c], x.begin() + bounds[c + 1], byMagnitude);
  }
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      if (c + width < chunks) {
        std::inplace_merge(x.begin() + bounds[c], x.begin() + bounds[c + width],
                           x.begin() + bounds[std::min(c + 2 * width, chunks)], byMagnitude);
      }
    }
  }
}
