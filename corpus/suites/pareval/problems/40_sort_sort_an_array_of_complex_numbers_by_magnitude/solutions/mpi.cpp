#include <mpi.h>

/* Sort the vector x of complex numbers by their magnitude in ascending order.
   Use MPI to sort in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Store the result in x on rank 0.
   Example:
   
   input: [3.0-1.0i, 4.5+2.1i, 0.0-1.0i, 1.0-0.0i, 0.5+0.5i]
   output: [0.5+0.5i, 0.0-1.0i, 1.0-0.0i, 3.0-1.0i, 4.5+2.1i]
*/
void sortComplexByMagnitude(std::vector<std::complex<double>> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto byMagnitude = [](std::complex<double> const& a, std::complex<double> const& b) {
    return std::abs(a) < std::abs(b);
  };
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  // Each rank sorts its block; rank 0 gathers the sorted runs and merges them.
  std::vector<std::complex<double>> local(x.begin() + displs[rank], x.begin() + displs[rank] + counts[rank]);
  std::sort(local.begin(), local.end(), byMagnitude);
  MPI_Gatherv(local.data(), counts[rank], MPI_CXX_DOUBLE_COMPLEX, x.data(), counts.data(), displs.data(), MPI_CXX_DOUBLE_COMPLEX, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      std::inplace_merge(x.begin(), x.begin() + displs[r], x.begin() + displs[r] + counts[r], byMagnitude);
    }
  }
}
