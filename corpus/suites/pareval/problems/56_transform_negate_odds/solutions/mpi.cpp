#include <mpi.h>

/* In the vector x negate the odd values and divide the even values by 2.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:

   input: [16, 11, 12, 14, 1, 0, 5]
   output: [8, -11, 6, 7, -1, 0, -5]
*/
void negateOddsAndHalveEvens(std::vector<int> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  int chunk = (n + size - 1) / size;
  int begin = std::min(n, rank * chunk), end = std::min(n, begin + chunk);
  for (int i = begin; i < end; ++i) {
    x[i] = x[i] % 2 == 0 ? x[i] / 2 : -x[i];
  }
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      int b = std::min(n, r * chunk), e = std::min(n, b + chunk);
      MPI_Recv(x.data() + b, e - b, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else {
    MPI_Send(x.data() + begin, end - begin, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
}
