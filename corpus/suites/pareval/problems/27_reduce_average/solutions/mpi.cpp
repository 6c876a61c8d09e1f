#include <mpi.h>

/* Return the average of the vector x.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the average on all ranks.
   Examples:
		
	 input: [1, 8, 4, 5, 1]
   output: 3.8

   input: [2, 2, 2, 3]
   output: 2.25
*/
double average(std::vector<double> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t chunk = n / size, extra = n % size;
  size_t begin = rank * chunk + std::min<size_t>(rank, extra);
  size_t end = begin + chunk + (static_cast<size_t>(rank) < extra ? 1 : 0);
  double local = 0.0;
  for (size_t i = begin; i < end; ++i) {
    local += x[i];
  }
  double sum = 0.0;
  MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / n;
}
