struct Point {
   double x, y;
};

/* Find the set of points that defined the smallest convex polygon that contains all the points in the vector points. Store the result in `hull`.
   Example:

   input: [{0, 3}, {1, 1}, {2, 2}, {4, 4}, {0, 0}, {1, 2}, {3, 1}, {3, 3}]
   output: [{0, 3}, {4, 4}, {3, 1}, {0, 0}]
*/
void convexHull(std::vector<Point> const& points, std::vector<Point> &hull) {
  // Andrew's monotone chain: sort by x (then y), build the lower and the upper hull.
  std::vector<Point> p(points);
  std::sort(p.begin(), p.end(), [](Point const& a, Point const& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  hull.clear();
  if (p.size() < 3) {
    hull = p;
    return;
  }
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
  hull = h;
}
