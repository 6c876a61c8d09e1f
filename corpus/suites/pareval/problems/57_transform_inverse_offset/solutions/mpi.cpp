#include <mpi.h>

/* Replace every element of the vector x with 1-1/x.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:

   input: [2, 4, 1, 12, -2]
   output: [0.5, 0.75, 0, 0.91666666, 1.5]
*/
void oneMinusInverse(std::vector<double> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  for (int i = displs[rank]; i < displs[rank] + counts[rank]; ++i) {
    x[i] = 1.0 - 1.0 / x[i];
  }
  if (rank == 0) {
    MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, x.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  } else {
    MPI_Gatherv(x.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr,
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
}
