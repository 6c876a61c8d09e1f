#include <omp.h>

/* For each letter in the alphabet, count the number of strings in the vector s that start with that letter.
   Assume all strings are in lower case. Store the output in `bins` array.
   Use OpenMP to compute in parallel.
   Example:

   input: ["dog", "cat", "xray", "cow", "code", "type", "flower"]
   output: [0, 0, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
*/
void firstLetterCounts(std::vector<std::string> const& s, std::array<size_t, 26> &bins) {
  #pragma omp parallel
  {
    std::array<size_t, 26> local{};
    #pragma omp for
    for (size_t i = 0; i < s.size(); ++i) {
      local[s[i][0] - 'a']++;
    }
    for (int b = 0; b < 26; ++b) {
      #pragma omp atomic
      bins[b] += local[b];
    }
  }
}
