#include <mpi.h>

/* For each letter in the alphabet, count the number of strings in the vector s that start with that letter.
   Assume all strings are in lower case. Store the output in `bins` array.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of s. The result is stored in bins on rank 0.
   Example:

   input: ["dog", "cat", "xray", "cow", "code", "type", "flower"]
   output: [0, 0, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
*/
void firstLetterCounts(std::vector<std::string> const& s, std::array<size_t, 26> &bins) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = s.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  std::array<size_t, 26> local{};
  for (size_t i = begin; i < end; ++i) {
    local[s[i][0] - 'a']++;
  }
  MPI_Reduce(local.data(), bins.data(), 26, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}
