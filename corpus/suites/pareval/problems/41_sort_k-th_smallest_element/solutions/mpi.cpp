#include <mpi.h>

/* Find the k-th smallest element of the vector x.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. Return the result on rank 0.
   Example:
   
   input: x=[1, 7, 6, 0, 2, 2, 10, 6], k=4
   output: 6
*/
int findKthSmallest(std::vector<int> const& x, int k) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = x.size();
  long begin = n * rank / size, end = n * (rank + 1) / size;
  // Binary search on the value, each rank counting over its block: the answer is the smallest
  // v with at least k values <= v. Every rank takes the same steps, so all end with the answer.
  int lo = INT_MAX, hi = INT_MIN;
  for (long i = begin; i < end; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  while (lo < hi) {
    int mid = (int)(((long long)lo + hi) >> 1);
    long local = 0, count = 0;
    for (long i = begin; i < end; ++i) {
      local += x[i] <= mid;
    }
    MPI_Allreduce(&local, &count, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (count >= k) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}
