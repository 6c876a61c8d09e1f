/* Compute the length of the shortest path from source to dest in the undirected graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Store the result in pathLength.
   Use CUDA to compute in parallel. The kernel is launched on an NxN grid of threads.
   Example:

	 input: [[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]], source=0, dest=3
   output: 2
*/
__global__ void shortestPathLength(const int *A, size_t N, int source, int dest, int *pathLength) {
  // Level-synchronous breadth-first search in block (0, 0), top-down: the threads share the
  // vertices of the current level and claim their unvisited neighbours with atomicCAS.
  // Blocks cannot wait for each other, so the other blocks return. Distances live in
  // device-heap memory.
  __shared__ int *dist;
  __shared__ int grew, reached;
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  size_t tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
  if (tid == 0) dist = (int *)malloc(N * sizeof(int));
  __syncthreads();
  if (dist == nullptr) return;
  volatile int *seen = dist;
  for (size_t v = tid; v < N; v += nthreads) dist[v] = -1;
  __syncthreads();
  if (tid == 0) dist[source] = 0;
  for (int level = 0;; level++) {
    __syncthreads();
    // Thread 0 decides for the whole block, so that all threads leave the loop together.
    if (tid == 0) {
      grew = 0;
      reached = seen[dest] != -1;
    }
    __syncthreads();
    if (reached) break;
    for (size_t u = tid; u < N; u += nthreads) {
      if (seen[u] != level) continue;
      for (size_t v = 0; v < N; ++v) {
        if (A[u * N + v] && seen[v] == -1 && atomicCAS(&dist[v], -1, level + 1) == -1) grew = 1;
      }
    }
    __syncthreads();
    if (!grew) break;
  }
  if (tid == 0) *pathLength = seen[dest];
  __syncthreads();
  if (tid == 0) free(dist);
}
