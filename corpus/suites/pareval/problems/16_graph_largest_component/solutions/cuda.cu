/* Compute the number of vertices in the largest component of the undirected graph defined by the adjacency matrix A.
   Store the result in largestComponentSize.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use CUDA to compute in parallel. The kernel is launched on an NxN grid of threads.
   Example:

	 input: [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
   output: 2
*/
__global__ void largestComponent(const int *A, size_t N, int *largestComponentSize) {
  // Label propagation in block (0, 0): every vertex starts with its own index as label and
  // takes the smallest label among its neighbours until nothing changes; then the vertices
  // of each label are counted. Blocks cannot wait for each other, so the other blocks
  // return. Labels and counts live in device-heap memory.
  __shared__ int *label;
  __shared__ int changed;
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  size_t tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
  if (tid == 0) label = (int *)malloc(2 * N * sizeof(int));
  __syncthreads();
  if (label == nullptr) return;
  int *count = label + N;
  volatile int *seen = label;
  for (size_t v = tid; v < N; v += nthreads) {
    label[v] = (int)v;
    count[v] = 0;
  }
  do {
    __syncthreads();
    if (tid == 0) changed = 0;
    __syncthreads();
    for (size_t v = tid; v < N; v += nthreads) {
      int best = seen[v];
      for (size_t u = 0; u < N; ++u) {
        if (A[v * N + u] && seen[u] < best) best = seen[u];
      }
      if (best < seen[v]) {
        atomicMin(&label[v], best);
        changed = 1;
      }
    }
    __syncthreads();
  } while (changed);
  for (size_t v = tid; v < N; v += nthreads) atomicAdd(&count[seen[v]], 1);
  __syncthreads();
  int local = 0;
  for (size_t v = tid; v < N; v += nthreads) local = max(local, count[v]);
  atomicMax(largestComponentSize, local);
  __syncthreads();
  if (tid == 0) free(label);
}
