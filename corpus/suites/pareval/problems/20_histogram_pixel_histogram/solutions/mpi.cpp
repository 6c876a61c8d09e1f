#include <mpi.h>

/* Count the number of pixels in image with each grayscale intensity.
   The vector `image` is a grayscale image with values 0-255.
   Store the results in `bins`.
   Use MPI to count in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of image. The result is stored in bins on rank 0.
   Example:
   
   input: image=[2, 116, 201, 11, 92, 92, 201, 4, 2]
   output: [0, 0, 2, 0, 1, ...]
*/
 void pixelCounts(std::vector<int> const& image, std::array<size_t, 256> &bins) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = image.size();
  size_t begin = n * rank / size;
  size_t end = n * (rank + 1) / size;
  std::array<size_t, 256> local{};
  for (size_t i = begin; i < end; ++i) {
    local[image[i]]++;
  }
  MPI_Reduce(local.data(), bins.data(), 256, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}
