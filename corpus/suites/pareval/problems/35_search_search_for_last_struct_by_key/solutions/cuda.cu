struct Book {
   const char* title;
   int pages;
};

/* Find the index of the last Book item in the vector books where Book.pages is less than 100.
   Store the result in lastShortBookIndex.
   Use CUDA to search in parallel. The kernel is launched with one thread for every book element.
	 Example:

   input: [{title="Green Eggs and Ham", pages=72}, {title="gulliver's travels", pages=362}, {title="Stories of Your Life", pages=54}, {title="Hamilton", pages=818}]
   output: 2
*/
__global__ void findLastShortBook(const Book *books, size_t N, size_t *lastShortBookIndex) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N && books[i].pages < 100) {
    atomicMax(reinterpret_cast<unsigned long long *>(lastShortBookIndex), static_cast<unsigned long long>(i));
  }
}
