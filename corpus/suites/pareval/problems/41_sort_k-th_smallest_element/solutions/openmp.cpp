#include <omp.h>

/* Find the k-th smallest element of the vector x.
   Use OpenMP to compute in parallel.
   Example:
   
   input: x=[1, 7, 6, 0, 2, 2, 10, 6], k=4
   output: 6
*/
int findKthSmallest(std::vector<int> const& x, int k) {
  // Binary search on the value: the answer is the smallest v with at least k values <= v.
  int lo = INT_MAX, hi = INT_MIN;
  #pragma omp parallel for reduction(min:lo) reduction(max:hi)
  for (size_t i = 0; i < x.size(); ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  while (lo < hi) {
    int mid = (int)(((long long)lo + hi) >> 1);
    size_t count = 0;
    #pragma omp parallel for reduction(+:count)
    for (size_t i = 0; i < x.size(); ++i) {
      count += x[i] <= mid;
    }
    if (count >= (size_t)k) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}
