struct COOElement {
   size_t row, column;
   double value;
};

/* Solve the sparse linear system Ax=b for x.
   A is a sparse NxN matrix in COO format. x and b are dense vectors with N elements.
   Example:
   
   input: A=[{0,0,1}, {0,1,1}, {1,1,-2}] b=[1,4]
   output: x=[3,-2]
*/
void solveLinearSystem(std::vector<COOElement> const& A, std::vector<double> const& b, std::vector<double> &x, size_t N) {
  // Dense Gaussian elimination with partial pivoting.
  std::vector<double> M(N * N, 0.0), rhs(b);
  for (auto const& e : A) {
    M[e.row * N + e.column] = e.value;
  }
  for (size_t k = 0; k < N; ++k) {
    size_t pivot = k;
    for (size_t i = k + 1; i < N; ++i) {
      if (std::abs(M[i * N + k]) > std::abs(M[pivot * N + k])) {
        pivot = i;
      }
    }
    if (pivot != k) {
      for (size_t j = k; j < N; ++j) {
        std::swap(M[k * N + j], M[pivot * N + j]);
      }
      std::swap(rhs[k], rhs[pivot]);
    }
    for (size_t i = k + 1; i < N; ++i) {
      double f = M[i * N + k] / M[k * N + k];
      for (size_t j = k + 1; j < N; ++j) {
        M[i * N + j] -= f * M[k * N + j];
      }
      rhs[i] -= f * rhs[k];
    }
  }
  for (size_t i = N; i-- > 0;) {
    double s = rhs[i];
    for (size_t j = i + 1; j < N; ++j) {
      s -= M[i * N + j] * x[j];
    }
    x[i] = s / M[i * N + i];
  }
}
