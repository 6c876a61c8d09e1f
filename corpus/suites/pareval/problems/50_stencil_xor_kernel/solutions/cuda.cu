/* Set every cell's value to 1 if it has exactly one neighbor that's a 1. Otherwise set it to 0.
   Note that we only consider neighbors and not input_{i,j} when computing output_{i,j}.
   input and output are NxN grids of ints in row-major.
   Use CUDA to compute in parallel. The kernel is launched on an NxN grid of threads.
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
__global__ void cellsXOR(const int *input, int *output, size_t N) {
  size_t j = blockIdx.x * blockDim.x + threadIdx.x;
  size_t i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= N || j >= N) {
    return;
  }
  int count = 0;
  if (i > 0) count += input[(i - 1) * N + j] == 1;
  if (i + 1 < N) count += input[(i + 1) * N + j] == 1;
  if (j > 0) count += input[i * N + j - 1] == 1;
  if (j + 1 < N) count += input[i * N + j + 1] == 1;
  output[i * N + j] = count == 1;
}
