/* For each value in the vector x compute its index in the sorted vector.
   Store the results in `ranks`.
   Use CUDA to compute in parallel. The kernel will be launched with at least as many threads as elements in x.
   Examples:

   input: [3.1, 2.8, 9.1, 0.4, 3.14]
   output: [2, 1, 4, 0, 3]
 
   input: [100, 7.6, 16.1, 18, 7.6]
   output: [4, 0, 1, 2, 3]
*/
__global__ void ranks(const float *x, size_t *ranks, size_t N) {
  // The rank of x[i] is the number of smaller values (the values are distinct; equal values
  // before i count too, so ties would still get distinct ranks).
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) {
    return;
  }
  float v = x[i];
  size_t smaller = 0;
  for (size_t j = 0; j < N; ++j) {
    float w = x[j];
    smaller += (w < v) || (w == v && j < i);
  }
  ranks[i] = smaller;
}
