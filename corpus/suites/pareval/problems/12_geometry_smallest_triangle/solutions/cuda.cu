struct Point {
	double x, y;
};

__device__ double triangleArea(Point const& A, Point const& B, Point const& C) {
  return 0.5 * fabs( A.x*(B.y-C.y) + B.x*(C.y-A.y) + C.x*(A.y-B.y) );
}

/* Compute the area of the smallest triangle that can be formed by any 3 points.
   Return the result in area.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [{0, 10}, {5, 5}, {1,0}, {-1, 1}, {-10, 0}]
   output: 5.5
*/
__global__ void smallestArea(const Point *points, size_t N, double *area) {
  // Thread i takes the triangles whose first corner is i. Areas are non-negative, and for
  // non-negative doubles the bit patterns order like the values, so an integer atomicMin
  // combines the threads' minima.
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double local = DBL_MAX;
  for (size_t j = i + 1; j < N; ++j) {
    for (size_t k = j + 1; k < N; ++k) {
      double a = triangleArea(points[i], points[j], points[k]);
      if (a < local) local = a;
    }
  }
  atomicMin((unsigned long long *)area, (unsigned long long)__double_as_longlong(local));
}
