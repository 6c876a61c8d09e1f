#include <mpi.h>

/* Return true if the vector x contains the value `target`. Return false otherwise.
   Use MPI to search in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Examples:

   input: x=[1, 8, 2, 6, 4, 6], target=3
   output: false
   
   input: x=[1, 8, 2, 6, 4, 6], target=8
   output: true
*/
bool contains(std::vector<int> const& x, int target) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t chunk = n / size, extra = n % size;
  size_t begin = rank * chunk + std::min<size_t>(rank, extra);
  size_t end = begin + chunk + (static_cast<size_t>(rank) < extra ? 1 : 0);
  int local = std::find(x.begin() + begin, x.begin() + end, target) != x.begin() + end ? 1 : 0;
  int found = 0;
  MPI_Reduce(&local, &found, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  return found != 0;
}
