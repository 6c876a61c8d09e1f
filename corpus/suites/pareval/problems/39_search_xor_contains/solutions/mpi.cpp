#include <mpi.h>

/* Return true if `val` is only in one of vectors x or y.
   Return false if it is in both or neither.
   Use MPI to search in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x and y. Return the result on rank 0.
   Examples:

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=7
   output: true

   input: x=[1,8,4,3,2], y=[3,4,4,1,1,7], val=1
   output: false
*/
bool xorContains(std::vector<int> const& x, std::vector<int> const& y, int val) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto chunk = [&](std::vector<int> const& v) {
    size_t begin = v.size() * rank / size, end = v.size() * (rank + 1) / size;
    return std::find(v.begin() + begin, v.begin() + end, val) != v.begin() + end ? 1 : 0;
  };
  int local[2] = {chunk(x), chunk(y)};
  int global[2] = {0, 0};
  MPI_Reduce(local, global, 2, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  return global[0] != global[1];
}
