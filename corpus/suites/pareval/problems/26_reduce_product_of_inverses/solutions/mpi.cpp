#include <mpi.h>

/* Return the product of the vector x with every odd indexed element inverted.
   i.e. x_0 * 1/x_1 * x_2 * 1/x_3 * x_4 ...
   Use MPI to compute product in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the product on all ranks.
   Example:

   input: [4, 2, 10, 4, 5]
   output: 25
*/
double productWithInverses(std::vector<double> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  double local = 1.0;
  for (size_t i = begin; i < end; ++i) {
    local *= i % 2 == 0 ? x[i] : 1.0 / x[i];
  }
  double product = 1.0;
  MPI_Allreduce(&local, &product, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  return product;
}
