#include <mpi.h>

/* Compute the fourier transform of x. Store real part of results in r and imaginary in i.
   Use MPI to compute in parallel. Assume MPI has already been initialized.
   Every rank has a complete copy of x. The final result is stored on rank 0.
   Example:

   input: [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
   output: r: [4, 1, 0, 1, 0, 1, 0, 1] i: [0, -2.41421, 0, -0.414214, 0, 0.414214, 0, 2.41421]
*/
void fft(std::vector<std::complex<double>> const& x, std::vector<double> &r, std::vector<double> &i) {
  // Decimation in time over ranks: with p ranks (p a power of two dividing n), rank q
  // transforms the subsequence x[q], x[q+p], ...; rank 0 combines the p partial spectra:
  // X_k = sum_q e^{-2 pi i qk/n} Y_q[k mod n/p].
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto transform = [](std::vector<std::complex<double>> &a) {
    const size_t m = a.size();
    for (size_t s = 1, j = 0; s < m; ++s) {
      size_t bit = m >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (s < j) std::swap(a[s], a[j]);
    }
    for (size_t len = 2; len <= m; len <<= 1) {
      for (size_t start = 0; start < m; start += len) {
        for (size_t k = 0; k < len / 2; ++k) {
          std::complex<double> w = std::polar(1.0, -2.0 * M_PI * (double)k / (double)len);
          std::complex<double> u = a[start + k], t = w * a[start + k + len / 2];
          a[start + k] = u + t;
          a[start + k + len / 2] = u - t;
        }
      }
    }
  };
  const size_t n = x.size();
  size_t p = 1;
  while (p * 2 <= (size_t)size && p * 2 <= n) p *= 2;
  const size_t m = n / p;
  std::vector<std::complex<double>> part(m);
  if ((size_t)rank < p) {
    for (size_t j = 0; j < m; ++j) part[j] = x[j * p + rank];
    transform(part);
  }
  std::vector<std::complex<double>> parts(rank == 0 ? n : 0);
  std::vector<int> counts(size, 0), displs(size, 0);
  for (size_t q = 0; q < p; ++q) {
    counts[q] = 2 * m;
    displs[q] = 2 * m * q;
  }
  MPI_Gatherv(part.data(), (size_t)rank < p ? 2 * m : 0, MPI_DOUBLE, parts.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (size_t k = 0; k < n; ++k) {
      std::complex<double> sum = 0.0;
      for (size_t q = 0; q < p; ++q) {
        sum += std::polar(1.0, -2.0 * M_PI * (double)((q * k) % n) / (double)n) * parts[q * m + k % m];
      }
      r[k] = sum.real();
      i[k] = sum.imag();
    }
  }
}
