#include <mpi.h>

/* Return the value of the smallest odd number in the vector x.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of x. Return the result on all ranks.
   Examples:

   input: [7, 9, 5, 2, 8, 16, 4, 1]
   output: 1

   input: [8, 36, 7, 2, 11]
   output: 7
*/
int smallestOdd(std::vector<int> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  int local = std::numeric_limits<int>::max();
  for (size_t i = begin; i < end; ++i) {
    if (x[i] % 2 != 0) {
      local = std::min(local, x[i]);
    }
  }
  int smallest = local;
  MPI_Allreduce(&local, &smallest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return smallest;
}
