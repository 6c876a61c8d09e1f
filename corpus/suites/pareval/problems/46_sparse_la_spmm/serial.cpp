struct COOElement {
   size_t row, column;
   double value;
};

/* Compute the matrix multiplication Y=AX. A is a sparse MxK matrix in COO format.
   X is a sparse KxN matrix in COO format. Y is a dense MxN matrix in row-major.
   Example:

   input: A=[{0,0,-2}, {0,1,1}, {1,1,-1}] X=[{0,1,2}, {1,0,-1}]
   output: Y=[{-1,-4}, {1,0}]
*/
void spmm(std::vector<COOElement> const& A, std::vector<COOElement> const& X, std::vector<double> &Y, size_t M, size_t K, size_t N) {
  // Index X by row (counting sort), then every entry a of A meets only the entries of row
  // a.column of X.
  std::vector<size_t> start(K + 1, 0);
  for (auto const& e : X) {
    ++start[e.row + 1];
  }
  for (size_t k = 0; k < K; ++k) {
    start[k + 1] += start[k];
  }
  std::vector<COOElement> byRow(X.size());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (auto const& e : X) {
    byRow[next[e.row]++] = e;
  }
  std::fill(Y.begin(), Y.end(), 0.0);
  for (auto const& a : A) {
    for (size_t k = start[a.column]; k < start[a.column + 1]; ++k) {
      Y[a.row * N + byRow[k].column] += a.value * byRow[k].value;
    }
  }
}
