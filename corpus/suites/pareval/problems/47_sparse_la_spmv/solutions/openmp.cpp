#include <omp.h>

struct COOElement {
   size_t row, column;
   double value;
};

/* Compute y = alpha*A*x + beta*y where alpha and beta are scalars, x and y are vectors,
   and A is a sparse matrix stored in COO format.
   A has dimensions MxN, x has N values, and y has M values.
   Use OpenMP to parallelize.
   Example:

   input: alpha=0.5 beta=1.0 A=[{0,1,3}, {1,0,-1}] x=[-4, 2] y=[-1,1]
   output: y=[2, 3]
*/
void spmv(double alpha, std::vector<COOElement> const& A, std::vector<double> const& x, double beta, std::vector<double> &y, size_t M, size_t N) {
  #pragma omp parallel
  {
    #pragma omp for
    for (size_t i = 0; i < M; ++i) {
      y[i] *= beta;
    }
    // Entries of one row may fall to different threads: the updates of y are atomic.
    #pragma omp for
    for (size_t e = 0; e < A.size(); ++e) {
      double v = alpha * A[e].value * x[A[e].column];
      #pragma omp atomic
      y[A[e].row] += v;
    }
  }
}
