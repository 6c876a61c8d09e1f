/* Count the number of edges in the directed graph defined by the adjacency matrix A.
   Store the result in numEdges. A represents a directed graph.
   A is an NxN adjacency matrix stored in row-major.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

	 input: [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]]
   output: 3
*/
__global__ void edgeCount(const int *A, size_t N, int *numEdges) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  int local = 0;
  for (size_t j = 0; j < N; ++j) {
    if (A[i * N + j] == 1) ++local;
  }
  if (local > 0) atomicAdd(numEdges, local);
}
