#include <mpi.h>

/* Simulate one generation of Game of Life on `input`. Store the results in `output`.
   A cell is 1 if it is alive and 0 if it is dead.
   If a live cell has fewer than 2 live neighbors then it dies.
   If a live cell has 2 or 3 live neighbors then it lives on.
   If a live cell has more than 3 live neighbords then it dies.
   If a cell is dead and has exactly 3 live neighbors then it becomes alive.
   `input` and `output` are NxN grids stored in row-major.
   Use MPI to compute in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of input. The result is stored in output on rank 0.
   Example:

   input:  [[0, 0, 0, 0, 0],
					  [0, 1, 0, 0, 0],
            [0, 1, 1, 0, 0],
            [0, 0, 1, 1, 0],
            [0, 1, 0, 0, 0]]
   output: [[0, 0, 0, 0, 0],
					  [0, 1, 1, 0, 0],
            [0, 1, 0, 1, 0],
            [0, 0, 0, 1, 0],
            [0, 0, 1, 0, 0]]
*/
void gameOfLife(std::vector<int> const& input, std::vector<int> &output, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Equal blocks of ceil(N / size) rows, the last ones padded, so a plain MPI_Gather fits.
  size_t chunk = (N + size - 1) / size;
  size_t first = std::min(N, rank * chunk), last = std::min(N, first + chunk);
  std::vector<int> local(chunk * N, 0);
  for (size_t i = first; i < last; ++i) {
    for (size_t j = 0; j < N; ++j) {
      int alive = 0;
      for (int di = -1; di <= 1; ++di) {
        for (int dj = -1; dj <= 1; ++dj) {
          long r = (long)i + di, c = (long)j + dj;
          if ((di != 0 || dj != 0) && r >= 0 && r < (long)N && c >= 0 && c < (long)N) {
            alive += input[r * N + c];
          }
        }
      }
      local[(i - first) * N + j] = alive == 3 || (alive == 2 && input[i * N + j] == 1);
    }
  }
  std::vector<int> all(rank == 0 ? chunk * N * size : 0);
  MPI_Gather(local.data(), chunk * N, MPI_INT, all.data(), chunk * N, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::copy(all.begin(), all.begin() + N * N, output.begin());
  }
}
