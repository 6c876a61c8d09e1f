// CUDA's launch model on the host: the blocks one after another, the threads of a block as
// fibers of one host thread meeting at __syncthreads(), `__shared__` as one array the block's
// threads share, atomics under a lock. Enough to check a kernel's index arithmetic, its folds
// and its block-level trees for any grid and block shape (not the GPU's memory model).
// PF_CONCURRENT_BLOCKS runs every block at once instead, each as a host thread.
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
#include <memory>
#include <mutex>
#include <queue>
#include <stack>
#include <string>
#include <thread>
#include <type_traits>
#include <ucontext.h>
#include <unordered_map>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __constant__
using std::abs;
using std::max;
using std::min;
// CUDA's math library overloads its functions for float, as <cmath>'s std:: ones are (the C
// library's global ones take double only: `max(m, fabs(v))` with a float m would not build).
using std::fabs, std::sqrt, std::cbrt, std::pow, std::exp, std::exp2, std::log, std::log2,
    std::log10, std::sin, std::cos, std::tan, std::atan, std::atan2, std::asin, std::acos,
    std::sinh, std::cosh, std::tanh, std::floor, std::ceil, std::round, std::trunc, std::fmod,
    std::fmin, std::fmax, std::hypot;
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
// The block's threads are fibers, run in turn on this host thread: each runs until it waits (at
// __syncthreads() or a pause in a loop that waits for another thread) and hands over to the
// next. The order alternates between blocks, first to last and then last to first, so that a
// thread reading what another writes with no barrier between them reads it too early, whichever
// of the two is the reader.
static pf_dim3 gridDim, blockDim, blockIdx, threadIdx;
struct pf_fiber {
    ucontext_t context;
    std::unique_ptr<char[]> stack;
    pf_dim3 idx;
    bool done;
};
static ucontext_t pf_scheduler;
static pf_fiber *pf_fiber_now;        // the fiber that runs now
static unsigned pf_arrived;           // threads at the barrier of this round
static unsigned long long pf_round;   // barriers the block has passed
inline void pf_yield() { swapcontext(&pf_fiber_now->context, &pf_scheduler); }
inline void __syncthreads() {
    const unsigned long long round = pf_round;
    if (++pf_arrived == blockDim.x * blockDim.y * blockDim.z) {
        pf_arrived = 0;
        pf_round++;
    }
    do pf_yield();
    while (pf_round == round);
}
#endif
#ifdef PF_CONCURRENT_BLOCKS
static thread_local pf_dim3 threadIdx;
#endif
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
template <class T> T atomicMin(T *a, T v) {
    std::lock_guard<std::mutex> held(pf_atomics);
    T old = *a;
    if (v < old) *a = v;
    return old;
}
template <class T> T atomicOr(T *a, T v) {
    std::lock_guard<std::mutex> held(pf_atomics);
    T old = *a;
    *a |= v;
    return old;
}
#ifdef PF_CONCURRENT_BLOCKS
inline void __nanosleep(unsigned) { std::this_thread::yield(); }  // let the awaited thread run
#else
inline void __nanosleep(unsigned) { pf_yield(); }  // let the awaited fiber run
#endif
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
static constexpr size_t PF_FIBER_STACK = 256 * 1024;
static std::vector<pf_fiber> pf_fibers;  // kept between launches, with their stacks
static void (*pf_body)(void *);
static void *pf_kernel;
static void pf_fiber_main() {
    pf_body(pf_kernel);
    pf_fiber_now->done = true;  // back to the scheduler through uc_link
}
template <class F> void pf_launch(pf_dim3 grid, pf_dim3 block, F kernel) {
    gridDim = grid;
    blockDim = block;
    const unsigned size = block.x * block.y * block.z;
    while (pf_fibers.size() < size) {
        pf_fibers.emplace_back();
        pf_fibers.back().stack.reset(new char[PF_FIBER_STACK]);
    }
    pf_kernel = &kernel;
    pf_body = [](void *k) { (*static_cast<F *>(k))(); };
    static bool backwards = false;
    for (blockIdx.z = 0; blockIdx.z < grid.z; blockIdx.z++)
        for (blockIdx.y = 0; blockIdx.y < grid.y; blockIdx.y++)
            for (blockIdx.x = 0; blockIdx.x < grid.x; blockIdx.x++) {
                pf_arrived = 0;
                for (unsigned t = 0; t < size; t++) {
                    pf_fiber &f = pf_fibers[t];
                    f.idx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                    f.done = false;
                    getcontext(&f.context);
                    f.context.uc_stack.ss_sp = f.stack.get();
                    f.context.uc_stack.ss_size = PF_FIBER_STACK;
                    f.context.uc_link = &pf_scheduler;
                    makecontext(&f.context, pf_fiber_main, 0);
                }
                for (unsigned live = size; live > 0;) {
                    live = 0;
                    for (unsigned k = 0; k < size; k++) {
                        pf_fiber &f = pf_fibers[backwards ? size - 1 - k : k];
                        if (f.done) continue;
                        pf_fiber_now = &f;
                        threadIdx = f.idx;
                        swapcontext(&pf_scheduler, &f.context);
                        live += !f.done;
                    }
                }
                backwards = !backwards;
            }
}
// Launch shapes: one thread, fewer threads than work, exactly the driver's 1-D shape, a 2-D
// grid of 2-D blocks, and many more threads than work.
static const pf_dim3 PF_SHAPES[][2] = {
    {{1, 1, 1}, {1, 1, 1}},   {{3, 1, 1}, {7, 1, 1}},  {{4, 1, 1}, {256, 1, 1}},
    {{5, 3, 1}, {16, 16, 1}}, {{2, 2, 2}, {4, 4, 4}},
};
#endif
