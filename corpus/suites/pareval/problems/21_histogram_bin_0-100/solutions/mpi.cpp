#include <mpi.h>

/* Vector x contains values between 0 and 100, inclusive. Count the number of
   values in [0,10), [10, 20), [20, 30), ... and store the counts in `bins`.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The result is stored in bins on rank 0.
   Example:

   input: [7, 32, 95, 12, 39, 32, 11, 71, 70, 66]
   output: [1, 2, 0, 3, 0, 0, 1, 2, 0, 1]
*/
void binsBy10Count(std::vector<double> const& x, std::array<size_t, 10> &bins) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t chunk = (n + size - 1) / size;
  size_t begin = std::min(n, rank * chunk);
  size_t end = std::min(n, begin + chunk);
  std::array<size_t, 10> local{};
  for (size_t i = begin; i < end; ++i) {
    size_t bin = static_cast<size_t>(x[i] / 10);
    local[bin < 10 ? bin : 9]++;
  }
  MPI_Reduce(local.data(), bins.data(), 10, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}
