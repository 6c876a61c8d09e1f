#include <omp.h>

/* Return the product of the vector x with every odd indexed element inverted.
   i.e. x_0 * 1/x_1 * x_2 * 1/x_3 * x_4 ...
   Use OpenMP to compute product in parallel.
   Example:

   input: [4, 2, 10, 4, 5]
   output: 25
*/
double productWithInverses(std::vector<double> const& x) {
  double result = 1.0;
  #pragma omp parallel for reduction(*:result)
  for (size_t i = 0; i < x.size(); ++i) {
    result *= i % 2 == 0 ? x[i] : 1.0 / x[i];
  }
  return result;
}
