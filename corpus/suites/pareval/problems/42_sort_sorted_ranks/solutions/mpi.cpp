#include <mpi.h>

/* For each value in the vector x compute its index in the sorted vector.
   Store the results in `ranks`.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every process has a complete copy of x. Store the result in ranks on process 0.
   Examples:

   input: [3.1, 2.8, 9.1, 0.4, 3.14]
   output: [2, 1, 4, 0, 3]
 
   input: [100, 7.6, 16.1, 18, 7.6]
   output: [4, 0, 1, 2, 3]
*/
void ranks(std::vector<float> const& x, std::vector<size_t> &ranks) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  // Every rank sorts its own copy, looks up the ranks of its block of x and sends them to rank 0.
  std::vector<float> sorted(x);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<unsigned long> local(counts[rank]);
  for (int k = 0; k < counts[rank]; ++k) {
    float v = x[displs[rank] + k];
    local[k] = std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin();
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_UNSIGNED_LONG, ranks.data(), counts.data(), displs.data(),
              MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
}
