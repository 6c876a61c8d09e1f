#include <omp.h>

/* Return the logical XOR reduction of the vector of bools x.
   Use OpenMP to reduce in parallel.
   Example:

   input: [false, false, false, true]
   output: true
*/
bool reduceLogicalXOR(std::vector<bool> const& x) {
  // Iterators walk std::vector<bool>'s packed bits much faster than x[i].
  int result = 0;
  #pragma omp parallel reduction(^:result)
  {
    size_t n = x.size(), nt = omp_get_num_threads(), t = omp_get_thread_num();
    auto first = x.begin() + n * t / nt;
    auto last = x.begin() + n * (t + 1) / nt;
    for (auto it = first; it != last; ++it) {
      result ^= *it ? 1 : 0;
    }
  }
  return result != 0;
}
