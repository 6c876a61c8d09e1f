#include <mpi.h>

/* Set every cell's value to 1 if it has exactly one neighbor that's a 1. Otherwise set it to 0.
   Note that we only consider neighbors and not input_{i,j} when computing output_{i,j}.
   input and output are NxN grids of ints in row-major.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of input. The result is stored in output on rank 0.
   Example:

   input: [[0, 1, 1, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 1, 0, 0]
   output: [[0, 0, 1, 1],
            [1, 0, 0, 1],
            [0, 0, 1, 0],
            [1, 0, 1, 0]]
*/
void cellsXOR(std::vector<int> const& input, std::vector<int> &output, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Block of rows per rank; every rank reads the neighbours it needs from its full copy.
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    size_t rows = N / size + (r < (int)(N % size) ? 1 : 0);
    counts[r] = rows * N;
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  size_t first = displs[rank] / (N == 0 ? 1 : N), last = first + counts[rank] / (N == 0 ? 1 : N);
  std::vector<int> local(counts[rank]);
  for (size_t i = first; i < last; ++i) {
    for (size_t j = 0; j < N; ++j) {
      int count = 0;
      if (i > 0) count += input[(i - 1) * N + j] == 1;
      if (i + 1 < N) count += input[(i + 1) * N + j] == 1;
      if (j > 0) count += input[i * N + j - 1] == 1;
      if (j + 1 < N) count += input[i * N + j + 1] == 1;
      local[(i - first) * N + j] = count == 1;
    }
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
              MPI_COMM_WORLD);
}
