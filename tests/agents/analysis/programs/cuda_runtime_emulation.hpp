// The CUDA runtime and CUB calls a whole program the `offload` tool writes makes, on the host,
// over `cuda_emulation.hpp`'s launch model: device and managed memory are host memory (so every
// pointer is reachable), copies are memcpy, CUB's inclusive scan runs in order, and a launch
// `kernel<<<grid, block>>>(args)` (rewritten by the test as `PF_LAUNCH`) runs its blocks in
// turn, a block's threads as fibers. Enough to check what the program computes, its kernels'
// index arithmetic, folds and scans, and its host code around them (not the GPU's memory model,
// its timing, or that nvcc builds it: a separate check).
#include "cuda_emulation.hpp"
#define __restrict__
#define __forceinline__ inline
typedef int cudaError_t;
static const cudaError_t cudaSuccess = 0;
enum cudaMemcpyKind {
    cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice, cudaMemcpyDefault
};
enum cudaMemoryType {
    cudaMemoryTypeUnregistered, cudaMemoryTypeHost, cudaMemoryTypeDevice, cudaMemoryTypeManaged
};
enum cudaDeviceAttr { cudaDevAttrPageableMemoryAccess = 88 };
struct cudaPointerAttributes {
    cudaMemoryType type;
};
inline const char *cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *device) {
    *device = 0;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr, int) {
    *value = 1;  // the host's memory is the device's: every pointer is reachable
    return cudaSuccess;
}
// Managed blocks by start, with their sizes: memory anyone else allocated is "unregistered",
// as CUDA reports host memory (an interior pointer belongs to its block).
static std::map<const char *, size_t> pf_managed;
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *seen, const void *p) {
    const char *at = (const char *)p;
    auto after = pf_managed.upper_bound(at);
    const bool managed = after != pf_managed.begin() && at < std::prev(after)->first + std::prev(after)->second;
    seen->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeUnregistered;
    return cudaSuccess;
}
template <class T> cudaError_t cudaMallocManaged(T **p, size_t size, unsigned = 1) {
    *p = (T *)calloc(1, size > 0 ? size : 1);  // zeroed: a read before any write shows as 0
    if (*p != nullptr) pf_managed[(const char *)*p] = size > 0 ? size : 1;
    return *p == nullptr;
}
template <class T> cudaError_t cudaMalloc(T **p, size_t size) { return cudaMallocManaged(p, size); }
inline cudaError_t cudaFree(void *p) {
    pf_managed.erase((const char *)p);
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *to, const void *from, size_t size, cudaMemcpyKind) {
    memcpy(to, from, size);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *to, int value, size_t size) {
    memset(to, value, size);
    return cudaSuccess;
}
namespace cub {
struct DeviceScan {
    // The sizing call (no work space) asks for one byte; the second runs the scan in order.
    template <class In, class Out, class Op>
    static cudaError_t InclusiveScan(void *work, size_t &bytes, In in, Out out, Op op, int count) {
        if (work == nullptr) {
            bytes = 1;
            return cudaSuccess;
        }
        if (count <= 0) return cudaSuccess;
        auto running = in[0];
        out[0] = running;
        for (int k = 1; k < count; k++) {
            running = op(running, in[k]);
            out[k] = running;
        }
        return cudaSuccess;
    }
};
}  // namespace cub
#define PF_LAUNCH(kernel, grid, block, ...) \
    pf_launch(pf_dim3{(unsigned)(grid)}, pf_dim3{(unsigned)(block)}, [&] { kernel(__VA_ARGS__); })
