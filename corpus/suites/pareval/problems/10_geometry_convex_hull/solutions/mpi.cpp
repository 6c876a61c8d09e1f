#include <mpi.h>

struct Point {
   double x, y;
};

/* Find the set of points that defined the smallest convex polygon that contains all the points in the vector points. Store the result in `hull`.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of points. The final hull is returned on rank 0.
   Example:

   input: [{0, 3}, {1, 1}, {2, 2}, {4, 4}, {0, 0}, {1, 2}, {3, 1}, {3, 3}]
   output: [{0, 3}, {4, 4}, {3, 1}, {0, 0}]
*/
void convexHull(std::vector<Point> const& points, std::vector<Point> &hull) {
  // Every hull vertex is a vertex of the hull of whichever block of the input it lies in:
  // each rank finds the hull of its block, rank 0 gathers them and takes their hull.
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
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
  size_t n = points.size();
  size_t lo = n * rank / size, hi = n * (rank + 1) / size;
  std::vector<Point> local = chain(std::vector<Point>(points.begin() + lo, points.begin() + hi));
  // A Point is two doubles: counts and offsets are in doubles.
  int mine = 2 * local.size();
  std::vector<int> counts(size), displs(size, 0);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<Point> all(rank == 0 ? (displs[size - 1] + counts[size - 1]) / 2 : 0);
  MPI_Gatherv(local.data(), mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, MPI_COMM_WORLD);
  if (rank == 0) hull = chain(all);
}
