#include <omp.h>

double distance(double x1, double x2) {
	return std::abs(x1 - x2);
}

/* Return the distance between the closest two elements in the vector x.
   Use OpenMP to compute in parallel.
   Example: 

   input: [7, 3, 9, 12, 31, 1]
   output: 2
*/
double closestPair(std::vector<double> const& x) {
  // Sort a copy in parallel (each thread sorts a slice, then the slices are merged pairwise),
  // after which the closest pair is adjacent.
  const long n = x.size();
  std::vector<double> s(x);
  int parts = omp_get_max_threads();
  std::vector<long> bounds(parts + 1);
  for (int t = 0; t <= parts; ++t) bounds[t] = n * t / parts;
  #pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < parts; ++t) {
    std::sort(s.begin() + bounds[t], s.begin() + bounds[t + 1]);
  }
  for (int width = 1; width < parts; width *= 2) {
    #pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < parts; t += 2 * width) {
      if (t + width < parts) {
        long lo = bounds[t], mid = bounds[t + width], hi = bounds[std::min(t + 2 * width, parts)];
        std::inplace_merge(s.begin() + lo, s.begin() + mid, s.begin() + hi);
      }
    }
  }
  double best = std::numeric_limits<double>::max();
  #pragma omp parallel for reduction(min : best)
  for (long i = 1; i < n; ++i) {
    double d = distance(s[i - 1], s[i]);
    if (d < best) best = d;
  }
  return best;
}
