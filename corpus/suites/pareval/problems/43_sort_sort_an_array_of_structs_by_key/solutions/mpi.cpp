#include <mpi.h>

struct Result {
   int startTime, duration;
   float value;
};

/* Sort vector of Result structs by start time in ascending order.
   Use MPI to sort in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of results. Store the output in results on rank 0.
   Example:
   
   input: [{startTime=8, duration=4, value=-1.22}, {startTime=2, duration=10, value=1.0}, {startTime=10, duration=3, value=0.0}]
   output: [{startTime=2, duration=10, value=1.0}, {startTime=8, duration=4, value=-1.22}, {startTime=10, duration=3, value=0.0}]
*/
void sortByStartTime(std::vector<Result> &results) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto byStart = [](Result const& a, Result const& b) { return a.startTime < b.startTime; };
  // A Result travels as its bytes.
  MPI_Datatype resultType;
  MPI_Type_contiguous(sizeof(Result), MPI_BYTE, &resultType);
  MPI_Type_commit(&resultType);
  int n = results.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = n / size + (r < n % size ? 1 : 0);
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  // Each rank sorts its block; rank 0 gathers the sorted runs and merges them.
  std::vector<Result> local(results.begin() + displs[rank], results.begin() + displs[rank] + counts[rank]);
  std::sort(local.begin(), local.end(), byStart);
  MPI_Gatherv(local.data(), counts[rank], resultType, results.data(), counts.data(), displs.data(), resultType, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      std::inplace_merge(results.begin(), results.begin() + displs[r], results.begin() + displs[r] + counts[r],
                         byStart);
    }
  }
  MPI_Type_free(&resultType);
}
