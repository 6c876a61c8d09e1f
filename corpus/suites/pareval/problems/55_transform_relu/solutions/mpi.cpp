#include <mpi.h>

/* Compute the ReLU function on every element of x. Elements less than zero become zero,
   while elements greater than zero stay the same.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:

   input: [-1.8, 24.0, 1.2, 0.0, -5.1, -0.2, 4.5]
   output: [0, 24.0, 1.2, 0, 0, 0, 4.5]
*/
void relu(std::vector<double> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<double> local(x.begin() + displs[rank], x.begin() + displs[rank] + counts[rank]);
  for (auto &v : local) {
    v = v < 0 ? 0 : v;
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, x.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
