#include <mpi.h>

/* Return the index of the value in the vector x that is closest to the math constant PI.
   Use M_PI for the value of PI.
   Use MPI to search in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Example:

   input: [9.18, 3.05, 7.24, 11.3, -166.49, 2.1]
   output: 1
*/
size_t findClosestToPi(std::vector<double> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  // MPI_MINLOC on (distance, index) pairs: the smallest distance, the lowest index on ties.
  struct {
    double distance;
    int index;
  } local{std::numeric_limits<double>::max(), 0}, best;
  for (size_t i = begin; i < end; ++i) {
    double distance = std::abs(x[i] - M_PI);
    if (distance < local.distance) {
      local.distance = distance;
      local.index = static_cast<int>(i);
    }
  }
  MPI_Reduce(&local, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
  return rank == 0 ? static_cast<size_t>(best.index) : 0;
}
