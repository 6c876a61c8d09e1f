#include <mpi.h>

/* Compute the reverse prefix sum of the vector x into output.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Store the result in output on rank 0.
   Examples:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [2, 8, 14, 18, 25, 26]

   input: [3, 3, 7, 1, -2]
   output: [-2, -1, 6, 9, 12]
*/
void reversePrefixSum(std::vector<int> const& x, std::vector<int> &output) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  // This rank computes output[displs[rank] ...]: sums over x from the back.
  std::vector<int> local(counts[rank]);
  int sum = 0;
  for (int i = 0; i < counts[rank]; ++i) {
    sum += x[n - 1 - (displs[rank] + i)];
    local[i] = sum;
  }
  int before = 0;
  MPI_Exscan(&sum, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  for (auto &v : local) {
    v += before;
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_INT, output.data(), counts.data(), displs.data(),
              MPI_INT, 0, MPI_COMM_WORLD);
}
