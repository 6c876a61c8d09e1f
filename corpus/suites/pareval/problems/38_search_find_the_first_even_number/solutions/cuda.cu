/* Find the index of the first even number in the vector x. Store it in firstEvenIndex.
   Use CUDA to parallelize the search. The kernel is launched with at least as many threads as values in x.
   Examples:

   input: [7, 3, 9, 5, 5, 7, 2, 9, 12, 11]
   output: 6

   input: [3, 8, 9, 9, 3, 4, 8, 6]
   output: 1
*/
__global__ void findFirstEven(const int *x, size_t N, size_t *firstEvenIndex) {
  // firstEvenIndex arrives as N: every even value's index competes for the minimum.
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N && x[i] % 2 == 0) {
    atomicMin(reinterpret_cast<unsigned long long *>(firstEvenIndex), static_cast<unsigned long long>(i));
  }
}
