#include <mpi.h>

/* Sort the vector x in ascending order ignoring elements with value 0.
   Leave zero valued elements in-place. 
	 Use MPI to sort x in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of x. Store the result in x on rank 0.
   Example:

   input: [8, 4, 0, 9, 8, 0, 1, -1, 7]
   output: [-1, 1, 0, 4, 7, 0, 8, 8, 9]
*/
void sortIgnoreZero(std::vector<int> &x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = x.size();
  long lo = n * rank / size, hi = n * (rank + 1) / size;
  // Each rank sorts the non-zero values of its block; rank 0 gathers and merges the runs and
  // writes them back into the non-zero slots of its copy.
  std::vector<int> local;
  for (long i = lo; i < hi; ++i) {
    if (x[i] != 0) {
      local.push_back(x[i]);
    }
  }
  std::sort(local.begin(), local.end());
  int mine = local.size();
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) {
    displs[r] = displs[r - 1] + counts[r - 1];
  }
  std::vector<int> values(rank == 0 ? displs[size - 1] + counts[size - 1] : 0);
  MPI_Gatherv(local.data(), mine, MPI_INT, values.data(), counts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      std::inplace_merge(values.begin(), values.begin() + displs[r], values.begin() + displs[r] + counts[r]);
    }
    size_t next = 0;
    for (auto &v : x) {
      if (v != 0) {
        v = values[next++];
      }
    }
  }
}
