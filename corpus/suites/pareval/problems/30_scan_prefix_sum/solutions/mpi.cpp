#include <mpi.h>

/* Compute the prefix sum of the vector x into output.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of x. Store the result in output on rank 0.
   Example:
   
   input: [1, 7, 4, 6, 6, 2]
   output: [1, 8, 12, 18, 24, 26]
*/
void prefixSum(std::vector<double> const& x, std::vector<double> &output) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<double> local(counts[rank]);
  double sum = 0.0;
  for (int i = 0; i < counts[rank]; ++i) {
    sum += x[displs[rank] + i];
    local[i] = sum;
  }
  double offset = 0.0;
  MPI_Exscan(&sum, &offset, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0.0;  // MPI_Exscan leaves rank 0's result undefined
  for (auto &v : local) {
    v += offset;
  }
  output.resize(n);
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, output.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
