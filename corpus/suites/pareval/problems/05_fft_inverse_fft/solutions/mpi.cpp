#include <mpi.h>

/* forward declare fft. computes fourier transform in-place */
void fft(std::vector<std::complex<double>> &x);

/* Compute the inverse fourier transform of x in-place.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:
   
   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: [{0.5,0}, {0.125,0.301777}, {0,-0}, {0.125,0.0517767}, {0,-0}, {0.125,-0.0517767}, {0,-0}, {0.125,-0.301777}]
*/
void ifft(std::vector<std::complex<double>> &x) {
  // ifft(x) = conj(fft(conj(x))) / n. The transform is split by decimation: with p ranks
  // (p a power of two dividing n), rank r transforms the subsequence x[r], x[r+p], ... and
  // rank 0 combines the p partial spectra: X_k = sum_r w^{rk} Y_r[k mod n/p], w = e^{-2 pi i/n}.
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  size_t p = 1;
  while (p * 2 <= (size_t)size && p * 2 <= n) p *= 2;
  const size_t m = n / p;
  std::vector<std::complex<double>> part(m);
  if ((size_t)rank < p) {
    for (size_t j = 0; j < m; ++j) part[j] = std::conj(x[j * p + rank]);
    fft(part);
  }
  std::vector<std::complex<double>> parts(rank == 0 ? n : 0);
  // Ranks beyond p send nothing; rank 0 receives the p spectra back to back.
  std::vector<int> counts(size, 0), displs(size, 0);
  for (size_t r = 0; r < p; ++r) {
    counts[r] = 2 * m;
    displs[r] = 2 * m * r;
  }
  MPI_Gatherv(part.data(), (size_t)rank < p ? 2 * m : 0, MPI_DOUBLE, parts.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double scale = 1.0 / static_cast<double>(n);
    for (size_t k = 0; k < n; ++k) {
      std::complex<double> sum = 0.0;
      for (size_t r = 0; r < p; ++r) {
        sum += std::polar(1.0, -2.0 * M_PI * (double)((r * k) % n) / (double)n) * parts[r * m + k % m];
      }
      x[k] = std::conj(sum) * scale;
    }
  }
}
