// CUDA's launch model on the host, one thread after another: enough to check a kernel's
// index arithmetic and its folds (not its concurrency) for any grid and block shape.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>
#define __global__
#define __device__
#define __host__
using std::max;
using std::min;
struct pf_dim3 {
    unsigned x = 1, y = 1, z = 1;
};
static pf_dim3 gridDim, blockDim, blockIdx, threadIdx;
template <class T, class V> T atomicAdd(T *a, V v) {
    T old = *a;
    *a += (T)v;
    return old;
}
template <class W> W atomicCAS(W *a, W expected, W desired) {
    W old = *a;
    if (old == expected) *a = desired;
    return old;
}
template <class F> void pf_launch(pf_dim3 grid, pf_dim3 block, F kernel) {
    gridDim = grid;
    blockDim = block;
    for (blockIdx.z = 0; blockIdx.z < grid.z; blockIdx.z++)
        for (blockIdx.y = 0; blockIdx.y < grid.y; blockIdx.y++)
            for (blockIdx.x = 0; blockIdx.x < grid.x; blockIdx.x++)
                for (threadIdx.z = 0; threadIdx.z < block.z; threadIdx.z++)
                    for (threadIdx.y = 0; threadIdx.y < block.y; threadIdx.y++)
                        for (threadIdx.x = 0; threadIdx.x < block.x; threadIdx.x++) kernel();
}
// Launch shapes: one thread, fewer threads than work, exactly the driver's 1-D shape, a 2-D
// grid of 2-D blocks, and many more threads than work.
static const pf_dim3 PF_SHAPES[][2] = {
    {{1, 1, 1}, {1, 1, 1}},   {{3, 1, 1}, {7, 1, 1}},  {{4, 1, 1}, {256, 1, 1}},
    {{5, 3, 1}, {16, 16, 1}}, {{2, 2, 2}, {4, 4, 4}},
};
