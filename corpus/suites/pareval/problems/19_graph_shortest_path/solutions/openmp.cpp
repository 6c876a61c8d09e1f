#include <omp.h>

/* Return the length of the shortest path from source to dest in the undirected graph defined by the adjacency matrix A.
   A is an NxN adjacency matrix stored in row-major. A is an undirected graph.
   Use OpenMP to compute in parallel.
   Example:

	 input: [[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]], source=0, dest=3
   output: 2
*/
int shortestPathLength(std::vector<int> const& A, size_t N, int source, int dest) {
  // Level-synchronous breadth-first search, bottom-up: at each level every unvisited vertex
  // checks, in parallel, whether one of its neighbours is in the frontier.
  std::vector<int> dist(N, -1), frontier{source}, next;
  dist[source] = 0;
  bool done = source == dest;
  int level = 0;
  #pragma omp parallel
  {
    while (!done) {
      #pragma omp for schedule(static)
      for (long v = 0; v < (long)N; ++v) {
        if (dist[v] != -1) continue;
        for (int u : frontier) {
          if (A[(size_t)v * N + u] == 1) {
            #pragma omp critical
            next.push_back(v);
            break;
          }
        }
      }
      // The implicit barriers of the loop above and of this block separate the levels.
      #pragma omp single
      {
        for (int v : next) dist[v] = level + 1;
        frontier.swap(next);
        next.clear();
        level++;
        done = frontier.empty() || dist[dest] != -1;
      }
    }
  }
  return dist[dest];
}
