#include <mpi.h>

/* Return the length of the shortest path from source to dest in the undirected graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of A. The shortest path length is returned on rank 0.
   Example:

	 input: [[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]], source=0, dest=3
   output: 2
*/
int shortestPathLength(std::vector<int> const& A, size_t N, int source, int dest) {
  // Level-synchronous breadth-first search, bottom-up: at each level every rank checks its
  // share of the unvisited vertices (dealt out cyclically) for a neighbour in the frontier;
  // the vertices found are exchanged so that every rank holds the next frontier.
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> dist(N, -1), frontier{source};
  dist[source] = 0;
  int level = 0;
  while (!frontier.empty() && dist[dest] == -1) {
    std::vector<int> found;
    for (size_t v = rank; v < N; v += size) {
      if (dist[v] != -1) continue;
      for (int u : frontier) {
        if (A[v * N + u] == 1) {
          found.push_back(v);
          break;
        }
      }
    }
    int mine = found.size();
    std::vector<int> counts(size), displs(size, 0);
    MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<int> next(displs[size - 1] + counts[size - 1]);
    MPI_Allgatherv(found.data(), mine, MPI_INT, next.data(), counts.data(), displs.data(), MPI_INT,
                   MPI_COMM_WORLD);
    for (int v : next) dist[v] = level + 1;
    frontier.swap(next);
    level++;
  }
  return dist[dest];
}
