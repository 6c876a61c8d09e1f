#include <omp.h>

struct Point {
	double x, y;
};

double triangleArea(Point const& A, Point const& B, Point const& C) {
  return 0.5 * std::abs( A.x*(B.y-C.y) + B.x*(C.y-A.y) + C.x*(A.y-B.y) );
}

/* Return the area of the smallest triangle that can be formed by any 3 points.
   Use OpenMP to compute in parallel.
   Example:

   input: [{0, 10}, {5, 5}, {1,0}, {-1, 1}, {-10, 0}]
   output: 5.5
*/
double smallestArea(std::vector<Point> const& points) {
  const long n = points.size();
  double minArea = std::numeric_limits<double>::max();
  // Early i have far more (j, k) pairs than late ones: deal them out cyclically.
  #pragma omp parallel for schedule(static, 1) reduction(min : minArea)
  for (long i = 0; i < n; ++i) {
    for (long j = i + 1; j < n; ++j) {
      for (long k = j + 1; k < n; ++k) {
        double area = triangleArea(points[i], points[j], points[k]);
        if (area < minArea) minArea = area;
      }
    }
  }
  return minArea;
}
