#include <mpi.h>

/* Return the logical XOR reduction of the vector of bools x.
   Use MPI to reduce in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of x. Return the result on all ranks.
   Example:

   input: [false, false, false, true]
   output: true
*/
bool reduceLogicalXOR(std::vector<bool> const& x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = x.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  int local = 0;
  for (auto it = x.begin() + begin; it != x.begin() + end; ++it) {
    local ^= *it ? 1 : 0;
  }
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD);
  return global != 0;
}
