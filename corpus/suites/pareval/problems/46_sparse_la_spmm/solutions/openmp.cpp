#include <omp.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Compute the matrix multiplication Y=AX. A is a sparse MxK matrix in COO format.
   X is a sparse KxN matrix in COO format. Y is a dense MxN matrix in row-major.
   Use OpenMP to compute in parallel.
   Example:

   input: A=[{0,0,-2}, {0,1,1}, {1,1,-1}] X=[{0,1,2}, {1,0,-1}]
   output: Y=[{-1,-4}, {1,0}]
*/
void spmm(std::vector<COOElement> const& A, std::vector<COOElement> const& X, std::vector<double> &Y, size_t M, size_t K, size_t N) {
  // Index A and X by row (counting sort); then the rows of Y are independent: thread by row.
  auto byRows = [](std::vector<COOElement> const& S, size_t rows, std::vector<size_t>& start,
                   std::vector<COOElement>& sorted) {
    start.assign(rows + 1, 0);
    for (auto const& e : S) {
      ++start[e.row + 1];
    }
    for (size_t r = 0; r < rows; ++r) {
      start[r + 1] += start[r];
    }
    sorted.resize(S.size());
    std::vector<size_t> next(start.begin(), start.end() - 1);
    for (auto const& e : S) {
      sorted[next[e.row]++] = e;
    }
  };
  std::vector<size_t> aStart, xStart;
  std::vector<COOElement> aRows, xRows;
  byRows(A, M, aStart, aRows);
  byRows(X, K, xStart, xRows);
  #pragma omp parallel for schedule(dynamic, 16)
  for (size_t i = 0; i < M; ++i) {
    double *row = &Y[i * N];
    std::fill(row, row + N, 0.0);
    for (size_t p = aStart[i]; p < aStart[i + 1]; ++p) {
      COOElement const& a = aRows[p];
      for (size_t q = xStart[a.column]; q < xStart[a.column + 1]; ++q) {
        row[xRows[q].column] += a.value * xRows[q].value;
      }
    }
  }
}
