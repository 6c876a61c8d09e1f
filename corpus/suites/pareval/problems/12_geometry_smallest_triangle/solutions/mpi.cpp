#include <mpi.h>

struct Point {
	double x, y;
};

double triangleArea(Point const& A, Point const& B, Point const& C) {
  return 0.5 * std::abs( A.x*(B.y-C.y) + B.x*(C.y-A.y) + C.x*(A.y-B.y) );
}

/* Return the area of the smallest triangle that can be formed by any 3 points.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Example:

   input: [{0, 10}, {5, 5}, {1,0}, {-1, 1}, {-10, 0}]
   output: 5.5
*/
double smallestArea(std::vector<Point> const& points) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = points.size();
  // Cyclic distribution of i balances the shrinking (j, k) triangles.
  double local = std::numeric_limits<double>::max();
  for (long i = rank; i < n; i += size) {
    for (long j = i + 1; j < n; ++j) {
      for (long k = j + 1; k < n; ++k) {
        double area = triangleArea(points[i], points[j], points[k]);
        if (area < local) local = area;
      }
    }
  }
  double result = local;
  MPI_Reduce(&local, &result, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return result;
}
