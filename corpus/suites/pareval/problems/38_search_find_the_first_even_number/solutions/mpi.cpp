#include <mpi.h>

/* Return the index of the first even number in the vector x.
   Use MPI to parallelize the search. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Examples:

   input: [7, 3, 9, 5, 5, 7, 2, 9, 12, 11]
   output: 6

   input: [3, 8, 9, 9, 3, 4, 8, 6]
   output: 1
*/
size_t findFirstEven(std::vector<int> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  // The first even value of this rank's chunk, or n.
  unsigned long local = n;
  for (size_t i = begin; i < end; ++i) {
    if (x[i] % 2 == 0) {
      local = i;
      break;
    }
  }
  unsigned long first = n;
  MPI_Reduce(&local, &first, 1, MPI_UNSIGNED_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  return first;
}
