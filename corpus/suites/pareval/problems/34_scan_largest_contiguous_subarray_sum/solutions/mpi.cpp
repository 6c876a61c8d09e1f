#include <mpi.h>

/* Return the largest sum of any contiguous subarray in the vector x.
   i.e. if x=[−2, 1, −3, 4, −1, 2, 1, −5, 4] then [4, −1, 2, 1] is the contiguous
   subarray with the largest sum of 6.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Example:

   input: [−2, 1, −3, 4, −1, 2, 1, −5, 4]
   output: 6
*/
int maximumSubarray(std::vector<int> const& x) {
  // Kadane on each rank's chunk gives, per chunk: its total, its best prefix, its best suffix
  // and its best subarray. Rank 0 combines the chunks from left to right.
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  const int lowest = std::numeric_limits<int>::lowest();
  int total = 0, prefix = lowest, best = lowest, current = 0;
  for (size_t i = begin; i < end; ++i) {
    total += x[i];
    prefix = std::max(prefix, total);
    current = std::max(current, 0) + x[i];  // the best sum ending at i
    best = std::max(best, current);
  }
  int suffix = lowest, running = 0;
  for (size_t i = end; i > begin; --i) {
    running += x[i - 1];
    suffix = std::max(suffix, running);
  }
  int mine[4] = {total, prefix, suffix, best};
  std::vector<int> all(4 * size);
  MPI_Gather(mine, 4, MPI_INT, all.data(), 4, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    return 0;
  }
  // result: the best subarray so far; tail: the best subarray ending where the chunks so far end.
  int result = lowest, tail = lowest;
  for (int r = 0; r < size; ++r) {
    int t = all[4 * r], p = all[4 * r + 1], s = all[4 * r + 2], b = all[4 * r + 3];
    if (b == lowest) continue;  // an empty chunk
    result = std::max(result, b);
    if (tail != lowest) result = std::max(result, tail + p);
    tail = tail == lowest ? s : std::max(s, tail + t);
  }
  return result;
}
