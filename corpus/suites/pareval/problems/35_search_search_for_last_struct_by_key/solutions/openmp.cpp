#include <omp.h>

struct Book {
   std::string title;
   int pages;
};

/* Return the index of the last Book item in the vector books where Book.pages is less than 100.
   Use OpenMP to search in parallel.
	 Example:

   input: [{title="Green Eggs and Ham", pages=72}, {title="gulliver's travels", pages=362}, {title="Stories of Your Life", pages=54}, {title="Hamilton", pages=818}]
   output: 2
*/
size_t findLastShortBook(std::vector<Book> const& books) {
  long long last = -1;
  #pragma omp parallel for reduction(max:last)
  for (size_t i = 0; i < books.size(); ++i) {
    if (books[i].pages < 100) {
      last = std::max(last, static_cast<long long>(i));
    }
  }
  return last < 0 ? 0 : static_cast<size_t>(last);
}
