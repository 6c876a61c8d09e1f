#include <omp.h>

/* Solve the linear system Ax=b for x.
   A is an NxN matrix in row-major. x and b have N elements.
   Use OpenMP to compute in parallel.
   Example:
   
   input: A=[[1,4,2], [1,2,3], [2,1,3]] b=[11, 11, 13]
   output: x=[3, 1, 2]
*/
void solveLinearSystem(std::vector<double> const& A, std::vector<double> const& b, std::vector<double> &x, size_t N) {
  std::vector<double> M(A), rhs(b);
  for (size_t i = 0; i < N; i++) {
    // Partial pivoting: the row with the largest entry in column i moves up.
    size_t p = i;
    for (size_t j = i + 1; j < N; j++) {
      if (std::abs(M[j * N + i]) > std::abs(M[p * N + i])) p = j;
    }
    if (p != i) {
      for (size_t k = 0; k < N; k++) std::swap(M[i * N + k], M[p * N + k]);
      std::swap(rhs[i], rhs[p]);
    }
    #pragma omp parallel for schedule(static)
    for (size_t j = i + 1; j < N; j++) {
      double factor = M[j * N + i] / M[i * N + i];
      for (size_t k = i; k < N; k++) {
        M[j * N + k] -= factor * M[i * N + k];
      }
      rhs[j] -= factor * rhs[i];
    }
  }
  // Back substitution, last unknown first.
  for (size_t r = 0; r < N; r++) {
    size_t i = N - 1 - r;
    double sum = 0;
    for (size_t k = i + 1; k < N; k++) sum += M[i * N + k] * x[k];
    x[i] = (rhs[i] - sum) / M[i * N + i];
  }
}
