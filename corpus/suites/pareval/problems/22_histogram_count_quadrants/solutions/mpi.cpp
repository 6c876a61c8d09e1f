#include <mpi.h>

struct Point {
   double x, y;
};

/* Count the number of cartesian points in each quadrant. The vector points contains a list of `Point` objects.
   Store the counts in `bins`.
   Use MPI to count in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of points. The result is stored in bins on rank 0.
   Example:

   input: [{x=1.5, y=0.1}, {x=-3, y=1.1}, {x=5, y=9}, {x=1.5, y=-1}, {x=3, y=-7}, {x=0.1, y=2}]
   output: [3, 1, 0, 2]
*/
void countQuadrants(std::vector<Point> const& points, std::array<size_t, 4> &bins) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = points.size();
  size_t chunk = n / size;
  size_t begin = rank * chunk;
  size_t end = rank == size - 1 ? n : begin + chunk;
  size_t local[4] = {0, 0, 0, 0};
  for (size_t i = begin; i < end; ++i) {
    bool right = points[i].x > 0, up = points[i].y > 0;
    local[up ? (right ? 0 : 1) : (right ? 3 : 2)]++;
  }
  std::vector<size_t> all(4 * size);
  MPI_Gather(local, 4, MPI_UNSIGNED_LONG, all.data(), 4, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    bins.fill(0);
    for (int r = 0; r < size; ++r) {
      for (int q = 0; q < 4; ++q) {
        bins[q] += all[4 * r + q];
      }
    }
  }
}
