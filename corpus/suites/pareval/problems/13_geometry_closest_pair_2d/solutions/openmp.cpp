#include <omp.h>

struct Point {
	double x, y;
};

double distance(Point const& p1, Point const& p2) {
	return std::sqrt(std::pow(p2.x-p1.x, 2) + std::pow(p2.y-p1.y, 2));
}

/* Return the distance between the closest two points in the vector points.
   Use OpenMP to compute in parallel.
   Example: 

   input: [{2, 3}, {12, 30}, {40, 50}, {5, 1}, {12, 10}, {3, 4}]
   output: 1.41421
*/
double closestPair(std::vector<Point> const& points) {
  const long n = points.size();
  if (n < 2) return 0;
  double best = std::numeric_limits<double>::max();
  #pragma omp parallel for schedule(static, 1) reduction(min : best)
  for (long i = 0; i < n; ++i) {
    for (long j = i + 1; j < n; ++j) {
      double d = distance(points[i], points[j]);
      if (d < best) best = d;
    }
  }
  return best;
}
