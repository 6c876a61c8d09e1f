#include <omp.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Factorize the sparse matrix A into A=LU where L is a lower triangular matrix and U is an upper triangular matrix.
   A is a sparse NxN matrix stored in COO format.
   Use OpenMP to compute in parallel.
   Example:

   input: A=[{0,0,4}, {0,1,3}, {1,0,6}, {1,1,3}]
   output: L=[{0,0,1},{1,0,1.5}, {1,1,1}] U=[{0,0,4}, {0,1,3}, {1,1,-1.5}]
*/
void luFactorize(std::vector<COOElement> const& A, std::vector<double> &L, std::vector<double> &U, size_t N) {
  // Doolittle: row i of U, then column i of L, each spread over the threads.
  std::vector<double> dense(N * N, 0.0);
  for (auto const& e : A) {
    dense[e.row * N + e.column] = e.value;
  }
  std::fill(L.begin(), L.end(), 0.0);
  std::fill(U.begin(), U.end(), 0.0);
  #pragma omp parallel
  for (size_t i = 0; i < N; ++i) {
    #pragma omp for
    for (size_t k = i; k < N; ++k) {
      double sum = 0.0;
      for (size_t j = 0; j < i; ++j) {
        sum += L[i * N + j] * U[j * N + k];
      }
      U[i * N + k] = dense[i * N + k] - sum;
    }
    #pragma omp for
    for (size_t k = i + 1; k < N; ++k) {
      double s = 0.0;
      for (size_t j = 0; j < i; ++j) {
        s += L[k * N + j] * U[j * N + i];
      }
      L[k * N + i] = (dense[k * N + i] - s) / U[i * N + i];
    }
  }
  for (size_t i = 0; i < N; ++i) {
    L[i * N + i] = 1.0;
  }
}
