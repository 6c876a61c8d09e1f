#include <omp.h>

/* Factorize the matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   Store the results for L and U into the original matrix A. 
   A is an NxN matrix stored in row-major.
   Use OpenMP to compute in parallel.
   Example:

   input: [[4, 3], [6, 3]]
   output: [[4, 3], [1.5, -1.5]]
*/
void luFactorize(std::vector<double> &A, size_t N) {
  for (size_t i = 0; i < N; i++) {
    // Rows below the pivot are independent of each other at step i.
    #pragma omp parallel for schedule(static)
    for (size_t j = i + 1; j < N; j++) {
      double factor = A[j * N + i] / A[i * N + i];
      A[j * N + i] = factor;
      for (size_t k = i + 1; k < N; k++) {
        A[j * N + k] -= factor * A[i * N + k];
      }
    }
  }
}
