#include <omp.h>

/* Return true if `val` is only in one of vectors x or y.
   Return false if it is in both or neither.
   Use OpenMP to search in parallel.
   Examples:

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=7
   output: true

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=1
   output: false
*/
bool xorContains(std::vector<int> const& x, std::vector<int> const& y, int val) {
  bool inX = false, inY = false;
  #pragma omp parallel for reduction(||:inX, inY)
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    if (i < x.size() && x[i] == val) inX = true;
    if (i < y.size() && y[i] == val) inY = true;
  }
  return inX != inY;
}
