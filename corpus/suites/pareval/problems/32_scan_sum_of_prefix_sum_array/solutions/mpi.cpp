#include <mpi.h>

/* Compute the prefix sum array of the vector x and return its sum.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Example:

   input: [-7, 2, 1, 9, 4, 8]
   output: 15
*/
double sumOfPrefixSum(std::vector<double> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  // Prefix sums of this rank's chunk, then the total of the chunks before it, which is part of
  // each of this chunk's prefix sums.
  double running = 0.0, local = 0.0;
  for (size_t i = begin; i < end; ++i) {
    running += x[i];
    local += running;
  }
  double before = 0.0;
  MPI_Exscan(&running, &before, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) before = 0.0;  // MPI_Exscan leaves rank 0's result undefined
  local += before * static_cast<double>(end - begin);
  double sum = 0.0;
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return sum;
}
