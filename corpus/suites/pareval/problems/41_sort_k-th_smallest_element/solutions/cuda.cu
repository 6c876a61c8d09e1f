/* Find the k-th smallest element of the vector x.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Example:
   
   input: x=[1, 7, 6, 0, 2, 2, 10, 6], k=4
   output: 6
*/
__global__ void findKthSmallest(const int *x, size_t N, int k, int *kthSmallest) {
  // One block runs a binary search on the value with block-wide counts: the answer is the
  // smallest v with at least k values <= v. The other blocks have nothing to do.
  if (blockIdx.x != 0) {
    return;
  }
  __shared__ int lo, hi;
  __shared__ unsigned long long count;
  if (threadIdx.x == 0) {
    lo = INT_MAX;
    hi = INT_MIN;
  }
  __syncthreads();
  int myLo = INT_MAX, myHi = INT_MIN;
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
    myLo = min(myLo, x[i]);
    myHi = max(myHi, x[i]);
  }
  atomicMin(&lo, myLo);
  atomicMax(&hi, myHi);
  __syncthreads();
  while (lo < hi) {
    int mid = (int)(((long long)lo + hi) >> 1);
    if (threadIdx.x == 0) {
      count = 0;
    }
    __syncthreads();
    unsigned long long mine = 0;
    for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
      mine += x[i] <= mid;
    }
    atomicAdd(&count, mine);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (count >= (unsigned long long)k) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *kthSmallest = lo;
  }
}
