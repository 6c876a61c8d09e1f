// pf_cuda.cuh: device helpers of the CUDA drivers, included after pf.hpp and before the
// solution (the CUDA prompts use cuDoubleComplex without including cuComplex.h).
#pragma once

#include <cuComplex.h>
#include <cuda_runtime.h>

namespace pf {

inline void cuda_check(cudaError_t status, const char *what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(status));
    std::exit(3);
  }
}

// Device copy of a host vector (one element at least, so empty inputs still get a pointer).
template <class T>
T *to_device(std::vector<T> const &host) {
  T *device = nullptr;
  std::size_t n = host.empty() ? 1 : host.size();
  cuda_check(cudaMalloc(&device, n * sizeof(T)), "cudaMalloc");
  if (!host.empty()) cuda_check(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  return device;
}

// Device copy of a single value, for kernels that store a scalar result through a pointer.
template <class T>
T *to_device(T const &value) {
  return to_device(std::vector<T>{value});
}

template <class T>
void to_host(std::vector<T> &host, T const *device) {
  if (!host.empty()) cuda_check(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

template <class T>
T to_host(T const *device) {
  std::vector<T> one(1);
  to_host(one, device);
  return one[0];
}

template <class T>
void release(T *device) {
  cuda_check(cudaFree(device), "cudaFree");
}

// Blocks of `threads` threads covering n work items (at least one block).
inline unsigned blocks(std::size_t n, unsigned threads) {
  std::size_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b == 0 ? 1 : b);
}

// Times a kernel launch to its completion; launch errors and faults end the program.
template <class F>
void timed_kernel(F &&launch) {
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  auto start = std::chrono::steady_clock::now();
  launch();
  cuda_check(cudaGetLastError(), "kernel launch");
  cuda_check(cudaDeviceSynchronize(), "kernel");
  kernel_seconds() = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pf
