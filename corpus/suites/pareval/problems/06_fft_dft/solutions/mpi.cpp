#include <mpi.h>

/* Compute the discrete fourier transform of x. Store the result in output.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Example:

   input: [1, 4, 9, 16]
   output: [30+0i, -8-12i, -10-0i, -8+12i]
*/
void dft(std::vector<double> const& x, std::vector<std::complex<double>> &output) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = x.size();
  output.resize(n);
  // Each rank computes a block of frequencies; counts are in doubles (two per value).
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    long values = n / size + (r < n % size ? 1 : 0);
    counts[r] = 2 * values;
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  const long first = displs[rank] / 2, count = counts[rank] / 2;
  std::vector<std::complex<double>> local(count);
  for (long c = 0; c < count; ++c) {
    long k = first + c;
    std::complex<double> sum = 0.0;
    for (long j = 0; j < n; ++j) {
      double angle = -2.0 * M_PI * (double)((j * k) % n) / (double)n;
      sum += x[j] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    local[c] = sum;
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, output.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
