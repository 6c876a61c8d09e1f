// CUDA's launch model on the host: the blocks one after another, the threads of a block as
// host threads meeting at a barrier for __syncthreads(), `__shared__` as one array the block's
// threads share, atomics under a lock. Enough to check a kernel's index arithmetic, its folds
// and its block-level trees for any grid and block shape (not the GPU's memory model).
#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cfloat>
#include <climits>
#include <complex>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <limits>
#include <map>
#include <mutex>
#include <queue>
#include <stack>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __constant__
using std::abs;
using std::max;
using std::min;
// cuComplex.h's types: two numbers, as std::complex lays them out.
struct alignas(16) double2 {
    double x, y;
};
struct alignas(8) float2 {
    float x, y;
};
typedef double2 cuDoubleComplex;
typedef float2 cuFloatComplex;
struct pf_dim3 {
    unsigned x = 1, y = 1, z = 1;
};
#ifdef PF_CONCURRENT_BLOCKS
// Every block at once, each of one thread (its `__shared__` its own): what the blocks of a
// launch do to each other (tickets, a chain of running values, seats and a grid barrier, the
// block that ends last) runs for real, with the host's threads and memory.
#define __shared__ static thread_local
static pf_dim3 gridDim, blockDim;
static thread_local pf_dim3 blockIdx;
inline void __syncthreads() {}
#else
#define __shared__ static
static pf_dim3 gridDim, blockDim, blockIdx;
static std::barrier<> *pf_block_barrier;
inline void __syncthreads() { pf_block_barrier->arrive_and_wait(); }
#endif
static thread_local pf_dim3 threadIdx;
static std::mutex pf_atomics;
template <class T, class V> T atomicAdd(T *a, V v) {
    std::lock_guard<std::mutex> held(pf_atomics);
    T old = *a;
    *a += (T)v;
    return old;
}
template <class T> T atomicExch(T *a, T v) {
    std::lock_guard<std::mutex> held(pf_atomics);
    T old = *a;
    *a = v;
    return old;
}
template <class T> T atomicOr(T *a, T v) {
    std::lock_guard<std::mutex> held(pf_atomics);
    T old = *a;
    *a |= v;
    return old;
}
inline void __nanosleep(unsigned) { std::this_thread::yield(); }  // let the awaited thread run
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __trap() { std::abort(); }  // a kernel that stops the launch
template <class W> W atomicCAS(W *a, W expected, W desired) {
    std::lock_guard<std::mutex> held(pf_atomics);
    W old = *a;
    if (old == expected) *a = desired;
    return old;
}
#ifdef PF_CONCURRENT_BLOCKS
template <class F> void pf_launch(pf_dim3 grid, pf_dim3, F kernel) {
    gridDim = grid;
    blockDim = {1, 1, 1};
    std::vector<std::thread> blocks;
    std::latch started(grid.x * grid.y * grid.z);  // all start together, as a GPU's first wave
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++)
                blocks.emplace_back([=, &kernel, &started] {
                    blockIdx = {x, y, z};
                    threadIdx = {0, 0, 0};
                    started.arrive_and_wait();
                    kernel();
                });
    for (auto &block : blocks) block.join();
}
// Launch shapes: one block, a few, a 2-D grid, and many more blocks than the host has cores.
static const pf_dim3 PF_SHAPES[][2] = {
    {{1, 1, 1}, {1, 1, 1}}, {{3, 1, 1}, {1, 1, 1}}, {{5, 3, 1}, {1, 1, 1}}, {{64, 1, 1}, {1, 1, 1}},
};
#else
template <class F> void pf_launch(pf_dim3 grid, pf_dim3 block, F kernel) {
    gridDim = grid;
    blockDim = block;
    for (blockIdx.z = 0; blockIdx.z < grid.z; blockIdx.z++)
        for (blockIdx.y = 0; blockIdx.y < grid.y; blockIdx.y++)
            for (blockIdx.x = 0; blockIdx.x < grid.x; blockIdx.x++) {
                std::barrier<> met(block.x * block.y * block.z);
                pf_block_barrier = &met;
                std::vector<std::thread> threads;
                for (unsigned z = 0; z < block.z; z++)
                    for (unsigned y = 0; y < block.y; y++)
                        for (unsigned x = 0; x < block.x; x++)
                            threads.emplace_back([=, &kernel] {
                                threadIdx = {x, y, z};
                                kernel();
                            });
                for (auto &thread : threads) thread.join();
            }
}
// Launch shapes: one thread, fewer threads than work, exactly the driver's 1-D shape, a 2-D
// grid of 2-D blocks, and many more threads than work.
static const pf_dim3 PF_SHAPES[][2] = {
    {{1, 1, 1}, {1, 1, 1}},   {{3, 1, 1}, {7, 1, 1}},  {{4, 1, 1}, {256, 1, 1}},
    {{5, 3, 1}, {16, 16, 1}}, {{2, 2, 2}, {4, 4, 4}},
};
#endif
