#include <mpi.h>

/* Compute z = alpha*x+y where x and y are vectors. Store the result in z.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x and y. Store the result in z on rank 0.
   Example:
   
   input: x=[1, -5, 2, 9] y=[0, 4, 1, -1] alpha=2
   output: z=[2, -6, 5, 17]
*/
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
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
  for (int i = 0; i < counts[rank]; ++i) {
    int g = displs[rank] + i;
    local[i] = alpha * x[g] + y[g];
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, z.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
