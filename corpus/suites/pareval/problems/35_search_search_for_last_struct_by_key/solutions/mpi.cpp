#include <mpi.h>

struct Book {
   std::string title;
   int pages;
};

/* Return the index of the last Book item in the vector books where Book.pages is less than 100.
   Use MPI to search in parallel. Assume MPI is already initialized.
   Every rank has a complete copy of books. Return the result on rank 0.
	 Example:

   input: [{title="Green Eggs and Ham", pages=72}, {title="gulliver's travels", pages=362}, {title="Stories of Your Life", pages=54}, {title="Hamilton", pages=818}]
   output: 2
*/
size_t findLastShortBook(std::vector<Book> const& books) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long n = books.size();
  long long begin = n * rank / size;
  long long end = n * (rank + 1) / size;
  // Search this rank's chunk from its end: the first hit is the chunk's last short book.
  long long local = -1;
  for (long long i = end - 1; i >= begin; --i) {
    if (books[i].pages < 100) {
      local = i;
      break;
    }
  }
  long long last = -1;
  MPI_Reduce(&local, &last, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  return last < 0 ? 0 : static_cast<size_t>(last);
}
