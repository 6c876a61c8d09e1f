#include <omp.h>

bool isPowerOfTwo(int x) {
	return (x > 0) && !(x & (x - 1));
}

/* Apply the isPowerOfTwo function to every value in x and store the results in mask.
   Use OpenMP to compute in parallel.
   Example:

   input: [8, 0, 9, 7, 15, 64, 3]
   output: [true, false, false, false, false, true, false]
*/
void mapPowersOfTwo(std::vector<int> const& x, std::vector<bool> &mask) {
  int n = x.size();
  // std::vector<bool> packs 64 values per word: chunks of 64 aligned iterations give every
  // word to a single thread, so no two threads write the same word.
  #pragma omp parallel for schedule(static, 64)
  for (int i = 0; i < n; ++i) {
    mask[i] = isPowerOfTwo(x[i]);
  }
}
