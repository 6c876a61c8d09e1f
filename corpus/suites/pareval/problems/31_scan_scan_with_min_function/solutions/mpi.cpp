#include <mpi.h>

/* Replace the i-th element of the vector x with the minimum value from indices 0 through i.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Store the result in x on rank 0.
   Examples:

   input: [8, 6, -1, 7, 3, 4, 4]
   output: [8, 6, -1, -1, -1, -1, -1]

   input: [5, 4, 6, 4, 3, 6, 1, 1]
   output: [5, 4, 4, 4, 3, 3, 1, 1]
*/
void partialMinimums(std::vector<float> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  float running = std::numeric_limits<float>::infinity();
  std::vector<float> local(counts[rank]);
  for (int i = 0; i < counts[rank]; ++i) {
    running = std::min(running, x[displs[rank] + i]);
    local[i] = running;
  }
  float before = std::numeric_limits<float>::infinity();
  MPI_Exscan(&running, &before, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) before = std::numeric_limits<float>::infinity();  // undefined on rank 0
  for (auto &v : local) {
    v = std::min(v, before);
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_FLOAT, x.data(), counts.data(), displs.data(),
              MPI_FLOAT, 0, MPI_COMM_WORLD);
}
