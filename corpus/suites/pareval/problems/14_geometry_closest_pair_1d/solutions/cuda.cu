__device__ double distanceBetweenPoints(double x1, double x2) {
	return fabs(x1 - x2);
}

/* Compute the distance between the closest two elements in the vector x.
   Store the result in distance.
   Use CUDA to compute in parallel. The kernel is launched with at least N threads.
   Example:

   input: [7, 3, 9, 12, 31, 1]
   output: 2
*/
__global__ void closestPair(const double *x, size_t N, double *distance) {
  // Thread i compares x[i] with every later value. Distances are non-negative, and for
  // non-negative doubles the bit patterns order like the values, so an integer atomicMin
  // combines the threads' minima.
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double local = DBL_MAX;
  for (size_t j = i + 1; j < N; ++j) {
    double d = distanceBetweenPoints(x[i], x[j]);
    if (d < local) local = d;
  }
  atomicMin((unsigned long long *)distance, (unsigned long long)__double_as_longlong(local));
}
