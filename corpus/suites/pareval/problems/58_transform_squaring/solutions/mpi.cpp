#include <mpi.h>

/* Replace every element of x with the square of its value.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:

   input: [5, 1, 2, -4, 8]
   output: [25, 1, 4, 16, 64]
*/
void squareEach(std::vector<int> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  int chunk = n / size, extra = n % size;
  int begin = rank * chunk + std::min(rank, extra);
  int end = begin + chunk + (rank < extra ? 1 : 0);
  // Every rank squares its block into a zeroed vector; a sum over ranks assembles them on rank 0.
  std::vector<int> partial(n, 0);
  for (int i = begin; i < end; ++i) {
    partial[i] = x[i] * x[i];
  }
  MPI_Reduce(partial.data(), x.data(), n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
}
