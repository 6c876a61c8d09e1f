#include <mpi.h>

/* Compute one iteration of a 3-point 1D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its two neighbors and stored in the corresponding element of `output`.
   i.e. output[i] = (input[i-1]+input[i]+input[i+1])/3
   Replace with 0 when reading past the boundaries of `input`.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of input. The result is stored in output on rank 0.
   Example:

   input: [9, -6, -1, 2, 3]
   output: [1, 2/3, -5/3, 4/3, 5/3]
*/
void jacobi1D(std::vector<double> const& input, std::vector<double> &output) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = input.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<double> local(counts[rank]);
  for (long k = 0; k < counts[rank]; ++k) {
    long i = displs[rank] + k;
    double left = i > 0 ? input[i - 1] : 0.0;
    double right = i + 1 < n ? input[i + 1] : 0.0;
    local[k] = (left + input[i] + right) / 3;
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, MPI_COMM_WORLD);
}
