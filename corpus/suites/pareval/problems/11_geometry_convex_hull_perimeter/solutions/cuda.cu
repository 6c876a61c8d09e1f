struct Point {
	double x, y;
};

__device__ double distance(Point const& p1, Point const& p2) {
	return sqrt(pow(p2.x-p1.x, 2) + pow(p2.y-p1.y, 2));
}

/* Compute the perimeter of the smallest convex polygon that contains all the points in the vector points.
   Store the result in perimeter.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as points.
   Example:

   input: [{0, 3}, {1, 1}, {2, 2}, {4, 4}, {0, 0}, {1, 2}, {3, 1}, {3, 3}]
   output: 13.4477
*/
__global__ void convexHullPerimeter(const Point *points, size_t numPoints, double *perimeter) {
  // Gift wrapping in block 0: start at the leftmost point; the next vertex is the point with
  // no other point to its right, as seen from the current vertex. The threads search their
  // share of the points for it, thread 0 combines their answers and adds up the edges.
  // Every point lies within a half-plane as seen from a hull vertex, so "more clockwise" is a
  // total order there.
  __shared__ size_t best[1024];
  __shared__ size_t current, start, count;
  __shared__ double length;
  __shared__ bool done;
  if (blockIdx.x != 0 || numPoints < 2) return;
  size_t tid = threadIdx.x, nthreads = blockDim.x;
  size_t mine = tid < numPoints ? tid : 0;
  for (size_t k = tid; k < numPoints; k += nthreads) {
    if (points[k].x < points[mine].x || (points[k].x == points[mine].x && points[k].y < points[mine].y)) mine = k;
  }
  best[tid] = mine;
  __syncthreads();
  if (tid == 0) {
    size_t left = best[0];
    for (size_t t = 1; t < nthreads; t++) {
      Point const &c = points[best[t]];
      if (c.x < points[left].x || (c.x == points[left].x && c.y < points[left].y)) left = best[t];
    }
    start = current = left;
    count = 0;
    length = 0.0;
    done = false;
  }
  __syncthreads();
  while (!done) {
    Point const &o = points[current];
    size_t cand = (current + 1) % numPoints;
    for (size_t k = tid; k < numPoints; k += nthreads) {
      if (k == current) continue;
      double cross = (points[cand].x - o.x) * (points[k].y - o.y) - (points[cand].y - o.y) * (points[k].x - o.x);
      if (cross < 0) cand = k;
    }
    best[tid] = cand;
    __syncthreads();
    if (tid == 0) {
      size_t next = best[0];
      for (size_t t = 1; t < nthreads; t++) {
        Point const &c = points[best[t]];
        double cross = (points[next].x - o.x) * (c.y - o.y) - (points[next].y - o.y) * (c.x - o.x);
        if (cross < 0) next = best[t];
      }
      length += distance(o, points[next]);
      count++;
      current = next;
      done = next == start || count >= numPoints;
      if (done) *perimeter = length;
    }
    __syncthreads();
  }
}
