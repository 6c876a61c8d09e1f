#include <omp.h>

struct Point {
	double x, y;
};

double distance(Point const& p1, Point const& p2) {
	return std::sqrt(std::pow(p2.x-p1.x, 2) + std::pow(p2.y-p1.y, 2));
}

/* Return the perimeter of the smallest convex polygon that contains all the points in the vector points.
   Use OpenMP to compute in parallel.
   Example:

   input: [{0, 3}, {1, 1}, {2, 2}, {4, 4}, {0, 0}, {1, 2}, {3, 1}, {3, 3}]
   output: 13.4477
*/
double convexHullPerimeter(std::vector<Point> const& points) {
  // Every hull vertex is a vertex of the hull of whichever slice of the input it lies in:
  // each thread finds the hull of its slice, then the hull of those few points is the answer.
  auto chain = [](std::vector<Point> p) {
    std::sort(p.begin(), p.end(), [](Point const& a, Point const& b) {
      return a.x < b.x || (a.x == b.x && a.y < b.y);
    });
    if (p.size() < 3) return p;
    auto cross = [](Point const& o, Point const& a, Point const& b) {
      return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    };
    std::vector<Point> h(2 * p.size());
    size_t k = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) k--;
      h[k++] = p[i];
    }
    for (size_t i = p.size() - 1, lower = k + 1; i > 0; --i) {
      while (k >= lower && cross(h[k - 2], h[k - 1], p[i - 1]) <= 0) k--;
      h[k++] = p[i - 1];
    }
    h.resize(k - 1);
    return h;
  };
  std::vector<Point> candidates;
  #pragma omp parallel
  {
    size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    size_t lo = points.size() * t / nt, hi = points.size() * (t + 1) / nt;
    std::vector<Point> local = chain(std::vector<Point>(points.begin() + lo, points.begin() + hi));
    #pragma omp critical
    candidates.insert(candidates.end(), local.begin(), local.end());
  }
  std::vector<Point> hull = chain(candidates);
  const long h = hull.size();
  if (h < 2) return 0.0;
  double perimeter = 0.0;
  #pragma omp parallel for reduction(+ : perimeter)
  for (long i = 0; i < h; ++i) {
    perimeter += distance(hull[i], hull[(i + 1) % h]);
  }
  return perimeter;
}
