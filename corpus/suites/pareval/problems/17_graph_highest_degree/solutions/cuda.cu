/* Compute the highest node degree in the undirected graph. The graph is defined in the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph. 
   Store the result in maxDegree.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

	 input: [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 0]]
   output: 3
*/
__global__ void maxDegree(const int *A, size_t N, int *maxDegree) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  int degree = 0;
  for (size_t j = 0; j < N; ++j) {
    degree += A[i * N + j];
  }
  atomicMax(maxDegree, degree);
}
