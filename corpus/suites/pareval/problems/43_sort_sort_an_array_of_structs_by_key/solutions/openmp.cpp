#include <omp.h>

struct Result {
   int startTime, duration;
   float value;
};

/* Sort vector of Result structs by start time in ascending order.
   Use OpenMP to sort in parallel.
   Example:
   
   input: [{startTime=8, duration=4, value=-1.22}, {startTime=2, duration=10, value=1.0}, {startTime=10, duration=3, value=0.0}]
   output: [{startTime=2, duration=10, value=1.0}, {startTime=8, duration=4, value=-1.22}, {startTime=10, duration=3, value=0.0}]
*/
void sortByStartTime(std::vector<Result> &results) {
  auto byStart = [](Result const& a, Result const& b) { return a.startTime < b.startTime; };
  // Parallel merge sort with tasks: halves are sorted by concurrent tasks, then merged.
  std::function<void(size_t, size_t)> sortRange = [&](size_t lo, size_t hi) {
    if (hi - lo < 256) {
      std::sort(results.begin() + lo, results.begin() + hi, byStart);
      return;
    }
    size_t mid = lo + (hi - lo) / 2;
    #pragma omp task
    sortRange(lo, mid);
    sortRange(mid, hi);
    #pragma omp taskwait
    std::inplace_merge(results.begin() + lo, results.begin() + mid, results.begin() + hi, byStart);
  };
  #pragma omp parallel
  #pragma omp single
  sortRange(0, results.size());
}
