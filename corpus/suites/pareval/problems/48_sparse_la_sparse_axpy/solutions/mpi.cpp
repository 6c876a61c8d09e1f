#include <mpi.h>

struct Element {
	size_t index;
  double value;
};

/* Compute z = alpha*x+y where x and y are sparse vectors. Store the result in z.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x and y. Store the result in z on rank 0.
   Example:
   
   input: x=[{5, 12}, {8, 3}, {12, -1}], y=[{3, 1}, {5, -2}, {7, 1}, {8, -3}], alpha=1
   output: z=[{3, 1}, {5, 10}, {7, 1}, {12, -1}]
*/
void sparseAxpy(double alpha, std::vector<Element> const& x, std::vector<Element> const& y, std::vector<double> &z) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Each rank adds a block of x and a block of y into a zeroed vector; the sum over ranks
  // lands in z on rank 0.
  size_t n = z.size();
  std::vector<double> partial(n, 0.0);
  size_t xb = x.size() * rank / size, xe = x.size() * (rank + 1) / size;
  size_t yb = y.size() * rank / size, ye = y.size() * (rank + 1) / size;
  for (size_t i = xb; i < xe; ++i) {
    partial[x[i].index] += alpha * x[i].value;
  }
  for (size_t i = yb; i < ye; ++i) {
    partial[y[i].index] += y[i].value;
  }
  MPI_Reduce(partial.data(), z.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
