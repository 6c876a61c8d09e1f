#include <mpi.h>

double distance(double x1, double x2) {
	return std::abs(x1 - x2);
}

/* Return the distance between the closest two elements in the vector x.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Example: 

   input: [7, 3, 9, 12, 31, 1]
   output: 2
*/
double closestPair(std::vector<double> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = x.size();
  // Cyclic distribution of i balances the shrinking inner loop.
  double local = std::numeric_limits<double>::max();
  for (long i = rank; i < n; i += size) {
    for (long j = i + 1; j < n; ++j) {
      double d = distance(x[i], x[j]);
      if (d < local) local = d;
    }
  }
  double result = local;
  MPI_Reduce(&local, &result, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return result;
}
