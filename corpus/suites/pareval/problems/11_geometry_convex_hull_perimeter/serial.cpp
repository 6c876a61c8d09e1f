struct Point {
	double x, y;
};

double distance(Point const& p1, Point const& p2) {
	return std::sqrt(std::pow(p2.x-p1.x, 2) + std::pow(p2.y-p1.y, 2));
}

/* Return the perimeter of the smallest convex polygon that contains all the points in the vector points.
   Example:

   input: [{0, 3}, {1, 1}, {2, 2}, {4, 4}, {0, 0}, {1, 2}, {3, 1}, {3, 3}]
   output: 13.4477
*/
double convexHullPerimeter(std::vector<Point> const& points) {
  // Andrew's monotone chain, then the length of the closed polygon.
  std::vector<Point> p(points);
  std::sort(p.begin(), p.end(), [](Point const& a, Point const& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  if (p.size() < 2) return 0.0;
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
  // h[k - 1] is h[0] again: the loop below closes the polygon.
  double perimeter = 0.0;
  for (size_t i = 0; i + 1 < k; ++i) perimeter += distance(h[i], h[i + 1]);
  return perimeter;
}
