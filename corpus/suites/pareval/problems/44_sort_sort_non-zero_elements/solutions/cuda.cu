/* Sort the array x in ascending order ignoring elements with value 0.
   Leave zero valued elements in-place. 
	 Use CUDA to compute in parallel. The kernel will be launched with 1 thread per element.
   Example:

   input: [8, 4, 0, 9, 8, 0, 1, -1, 7]
   output: [-1, 1, 0, 4, 7, 0, 8, 8, 9]
*/
__global__ void sortIgnoreZero(int *x, size_t N) {
  // One block does the work (the others return): it lists the positions of the non-zero values
  // in a device-heap buffer, sorts the values at those positions with Batcher's odd-even merge
  // sort (a sorting network for any length whose comparators within one stage are disjoint,
  // so __syncthreads() between stages is all the synchronisation needed) and frees the list.
  if (blockIdx.x != 0) {
    return;
  }
  __shared__ size_t *pos;
  __shared__ size_t m;
  if (threadIdx.x == 0) {
    m = 0;
    for (size_t i = 0; i < N; ++i) {
      m += x[i] != 0;
    }
    pos = m > 0 ? (size_t *)malloc(m * sizeof(size_t)) : nullptr;
    if (pos != nullptr) {
      size_t k = 0;
      for (size_t i = 0; i < N; ++i) {
        if (x[i] != 0) {
          pos[k++] = i;
        }
      }
    } else {
      // No heap for the list: insertion sort over the non-zero slots by one thread.
      for (size_t i = 0; i < N; ++i) {
        if (x[i] == 0) {
          continue;
        }
        int v = x[i];
        size_t hole = i;
        for (size_t j = i; j-- > 0;) {
          if (x[j] == 0) {
            continue;
          }
          if (x[j] <= v) {
            break;
          }
          x[hole] = x[j];
          hole = j;
        }
        x[hole] = v;
      }
      m = 0;
    }
  }
  __syncthreads();
  for (size_t p = 1; p < m; p <<= 1) {
    for (size_t k = p; k >= 1; k >>= 1) {
      size_t j0 = k % p;
      for (size_t a = threadIdx.x; a + k < m; a += blockDim.x) {
        if (a >= j0 && (a - j0) % (2 * k) < k && a / (2 * p) == (a + k) / (2 * p)) {
          int u = x[pos[a]], v = x[pos[a + k]];
          if (v < u) {
            x[pos[a]] = v;
            x[pos[a + k]] = u;
          }
        }
      }
      __syncthreads();
    }
  }
  if (threadIdx.x == 0 && pos != nullptr) {
    free(pos);
  }
}
