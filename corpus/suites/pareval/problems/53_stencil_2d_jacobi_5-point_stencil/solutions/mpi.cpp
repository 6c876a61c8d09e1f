#include <mpi.h>

/* Compute one iteration of a 5-point 2D jacobi stencil on `input`. Store the results in `output`.
   Each element of `input` will be averaged with its four neighbors and stored in the corresponding element of `output`.
   i.e. output_{i,j} = (input_{i,j-1} + input_{i,j+1} + input_{i-1,j} + input_{i+1,j} + input_{i,j})/5
   Replace with 0 when reading past the boundaries of `input`.
   `input` and `output` are NxN grids stored in row-major.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of input. The result is stored in output on rank 0.
   Example:

   input: [[3, 4, 1], [0, 1, 7], [5, 3, 2]]
   output: [[1.4, 1.8, 2.4],[1.8, 3, 2.2], [1.6, 2.2, 2.4]]
*/
void jacobi2D(std::vector<double> const& input, std::vector<double> &output, size_t N) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Row blocks with one ghost row above and below, filled by a halo exchange with the
  // neighbouring blocks (ghost rows outside the grid stay 0).
  std::vector<int> rows(size), counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    rows[r] = N / size + (r < (int)(N % size) ? 1 : 0);
    counts[r] = rows[r] * N;
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  size_t my = rows[rank], first = N == 0 ? 0 : displs[rank] / N;
  std::vector<double> block((my + 2) * N, 0.0);
  std::copy(input.begin() + first * N, input.begin() + (first + my) * N, block.begin() + N);
  int up = (my > 0 && rank > 0) ? rank - 1 : MPI_PROC_NULL;
  int down = (my > 0 && rank + 1 < size && rows[rank + 1] > 0) ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(block.data() + N, N, MPI_DOUBLE, up, 0, block.data() + (my + 1) * N, N, MPI_DOUBLE, down, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(block.data() + my * N, N, MPI_DOUBLE, down, 1, block.data(), N, MPI_DOUBLE, up, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<double> local(my * N);
  for (size_t i = 1; i <= my; ++i) {
    for (size_t j = 0; j < N; ++j) {
      double sum = block[i * N + j] + block[(i - 1) * N + j] + block[(i + 1) * N + j];
      if (j > 0) sum += block[i * N + j - 1];
      if (j + 1 < N) sum += block[i * N + j + 1];
      local[(i - 1) * N + j] = sum / 5;
    }
  }
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, MPI_COMM_WORLD);
}
