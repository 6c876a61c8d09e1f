#include <omp.h>

/* Multiply the matrix A by the matrix B. Store the results in the matrix C.
   A is an MxK matrix, B is a KxN matrix, and C is a MxN matrix. The matrices are stored in row-major.
   Use OpenMP to compute in parallel.
   Example:

   input: A=[[1, -1, 2], [0, -2, 1]] B=[[4, 1], [-1, 0], [2, 2]]
   output: C=[[9, 5], [4, 2]]
*/
void gemm(std::vector<double> const& A, std::vector<double> const& B, std::vector<double> &C, size_t M, size_t K, size_t N) {
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < M; ++i) {
    // i-k-j order: the inner loop runs along rows of B and C.
    for (size_t j = 0; j < N; ++j) C[i * N + j] = 0.0;
    for (size_t k = 0; k < K; ++k) {
      double a = A[i * K + k];
      for (size_t j = 0; j < N; ++j) {
        C[i * N + j] += a * B[k * N + j];
      }
    }
  }
}
