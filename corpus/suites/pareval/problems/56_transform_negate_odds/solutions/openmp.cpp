#include <omp.h>

/* In the vector x negate the odd values and divide the even values by 2.
   Use OpenMP to compute in parallel.
   Example:

   input: [16, 11, 12, 14, 1, 0, 5]
   output: [8, -11, 6, 7, -1, 0, -5]
*/
void negateOddsAndHalveEvens(std::vector<int> &x) {
  int n = x.size();
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) {
    int v = x[i];
    x[i] = v % 2 == 0 ? v / 2 : -v;
  }
}
