#include <mpi.h>

bool isPowerOfTwo(int x) {
	return (x > 0) && !(x & (x - 1));
}

/* Apply the isPowerOfTwo function to every value in x and store the results in mask.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored in mask on rank 0.
   Example:

   input: [8, 0, 9, 7, 15, 64, 3]
   output: [true, false, false, false, false, true, false]
*/
void mapPowersOfTwo(std::vector<int> const& x, std::vector<bool> &mask) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  // std::vector<bool> has no contiguous storage to send: exchange one char per value.
  std::vector<char> local(counts[rank]);
  for (int i = 0; i < counts[rank]; ++i) {
    local[i] = isPowerOfTwo(x[displs[rank] + i]);
  }
  std::vector<char> all(n);
  MPI_Gatherv(local.data(), counts[rank], MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      mask[i] = all[i] != 0;
    }
  }
}
