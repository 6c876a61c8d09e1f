struct Point {
	double x, y;
};

__device__ double distanceBetweenPoints(Point const& p1, Point const& p2) {
	return sqrt(pow(p2.x-p1.x, 2) + pow(p2.y-p1.y, 2));
}

/* Compute the distance between the closest two points in the vector points.
   Store the result in distance.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as points.
   Example: 

   input: [{2, 3}, {12, 30}, {40, 50}, {5, 1}, {12, 10}, {3, 4}]
   output: 1.41421
*/
__global__ void closestPair(const Point *points, size_t numPoints, double *distance) {
  // Thread i compares point i with every later point. Distances are non-negative, and for
  // non-negative doubles the bit patterns order like the values, so an integer atomicMin
  // combines the threads' minima.
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numPoints) return;
  double local = DBL_MAX;
  for (size_t j = i + 1; j < numPoints; ++j) {
    double d = distanceBetweenPoints(points[i], points[j]);
    if (d < local) local = d;
  }
  atomicMin((unsigned long long *)distance, (unsigned long long)__double_as_longlong(local));
}
