"""A driver's kernel as every writer of one builds it: its signature read, the device helpers
(atomic folds, block trees and scans, an argmin's merge), and the launch's seats and grid
barrier for work that runs in phases. `agents.analysis.kernels` writes kernels from loop
facts, `agents.analysis.traversal` from graph walks; both stand on this."""

from __future__ import annotations

from dataclasses import dataclass

from agents.analysis.errors import AnnotationError
from agents.analysis.parse import (
    function_definitions,
    function_name,
    function_params,
    syntax_tree,
    text,
)
from sandbox.spec import Language


@dataclass(frozen=True)
class KernelParam:
    name: str
    type: str
    """The declared type without the name (`const double *`, `size_t`)."""
    pointer: bool


def signature_params(signature: str) -> tuple[str, list[KernelParam]]:
    """The kernel's name and parameters, from its declaration (`__global__ void f(...)`)."""
    plain = signature.replace("__global__", "").strip().rstrip("{;").strip()
    root = syntax_tree(plain + " {}", Language.CPP).root_node
    definition = next(function_definitions(root), None)
    if definition is None:
        raise AnnotationError(f"cannot read the kernel signature {signature!r}")
    params = []
    for name, node in function_params(definition):
        declarator = node.child_by_field_name("declarator")
        pointer = declarator is not None and declarator.type in (
            "pointer_declarator",
            "array_declarator",
        )
        whole = text(node)
        params.append(KernelParam(name, whole[: whole.rfind(name)].strip(), pointer))
    return function_name(definition), params


def seated(work: str, resets: str = "") -> str:
    """`work` run by the seated blocks only (`PHASES`: a block takes a seat while seating is
    open), each thread with its block's width, the span of a tile (`pf_span`) and the tile its
    block holds (`pf_tile`); the block that ends last frees the seats and the tiles for the
    next launch, and runs `resets` (the kernel's own device totals)."""
    return (
        "    const unsigned pf_width = blockDim.x * blockDim.y * blockDim.z;\n"
        f"    const unsigned long long pf_span = (unsigned long long)pf_width * {TILE_ITEMS};\n"
        "    __shared__ unsigned long long pf_seated; /* the seat's number from 1, or 0 */\n"
        "    __shared__ unsigned long long pf_tile;\n"
        "    if (pf_lane == 0) pf_seated = pf_cuda_take_seat();\n"
        "    __syncthreads();\n"
        "    if (pf_seated) {\n" + work + "    }\n"
        "    if (pf_lane == 0 && pf_cuda_last_block(&pf_kernel_done)) {\n"
        "        *(volatile unsigned long long *)&pf_phase_state = 0;\n"
        "        *(volatile unsigned long long *)&pf_phase_next = 0;\n" + resets + "    }\n"
    )


def global_definition(signature: str) -> str:
    """The kernel's signature as its definition opens (`__global__` added where missing)."""
    text_sig = signature.strip().rstrip("{;").strip()
    return text_sig if "__global__" in text_sig else "__global__ " + text_sig


TILE_ITEMS = 8
"""Iterations per thread in a tile a seated block takes."""


PHASES = """\
__device__ unsigned long long pf_phase_state = 0; /* seats taken; the top bit: seating closed */
__device__ unsigned long long pf_phase_next = 0; /* the next tile of the loop running */
__device__ unsigned pf_phase_arrived = 0, pf_phase_round = 0; /* the grid barrier's */
/* A seat for this block (its thread 0 calls) while seating is open: a block that runs. The
   seat's number from 1, or 0 for none. */
__device__ inline unsigned long long pf_cuda_take_seat() {
    unsigned long long seen = *(volatile unsigned long long *)&pf_phase_state;
    for (;;) {
        if (seen >> 63) return 0;
        const unsigned long long was = atomicCAS(&pf_phase_state, seen, seen + 1);
        if (was == seen) return seen + 1;
        seen = was;
    }
}
/* The seated blocks' barrier (every thread of each seated block calling). The first to
   arrive closes seating, so the seats are blocks already running: all of them arrive. The
   last to arrive frees the tiles for the next loop and opens the next round. */
__device__ inline void pf_cuda_grid_sync() {
    __syncthreads();
    if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
        volatile unsigned *round = &pf_phase_round;
        const unsigned seen = *round;
        __threadfence();
        const unsigned long long state = atomicOr(&pf_phase_state, 1ULL << 63);
        const unsigned seats = (unsigned)(state & 0xffffffffULL);
        if (atomicAdd(&pf_phase_arrived, 1u) + 1 == seats) {
            atomicExch(&pf_phase_arrived, 0u);
            atomicExch(&pf_phase_next, 0ULL);
            __threadfence();
            atomicAdd(&pf_phase_round, 1u);
        } else {
            while (*round == seen) {
                pf_cuda_pause();
            }
        }
        __threadfence();
    }
    __syncthreads();
}
"""
"""Loops one after another in one launch of a driver's kernel, for any grid it launches:
blocks that start while seating is open take seats, the first barrier closes it, and the
blocks that come later leave at once. A seat is taken only by a block that runs, and a
running block is never preempted, so every seated block reaches every barrier: no grid, GPU
or launch order can make the barrier wait forever. Seated blocks take each loop's iterations
in tiles (a ticket), so the work spreads over however many seats there are."""


DONE = "__device__ unsigned long long pf_kernel_done = 0; /* blocks done (the last resets it) */\n"


HELPERS = """\
/* Device atomics of the kernel's results: additions where CUDA has them, compare-and-swap
   loops otherwise (and for 8-byte integers, whose addition is that of their bits). */
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
__device__ inline void pf_cuda_add(int *a, int v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(unsigned *a, unsigned v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(float *a, float v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(double *a, double v) { atomicAdd(a, v); }
template <class T> __device__ inline void pf_cuda_add(T *a, T v) {
    static_assert(std::is_integral<T>::value && sizeof(T) == 8, "an 8-byte integer");
    atomicAdd((unsigned long long *)a, (unsigned long long)v);
}
template <class T, class V> __device__ inline void pf_cuda_fold_plus(T *a, V v) {
    pf_cuda_add(a, (T)v);
}
template <class T, class F> __device__ inline void pf_cuda_fold_cas(T *a, T v, F f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a 4- or 8-byte result");
    typedef typename std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type W;
    W *word = (W *)a, seen = *word, want;
    do {
        want = seen;
        T now, next;
        memcpy(&now, &want, sizeof(T));
        next = f(now, v);
        W bits;
        memcpy(&bits, &next, sizeof(T));
        seen = atomicCAS(word, want, bits);
    } while (seen != want);
}
struct pf_cuda_xor_f { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };
struct pf_cuda_or_f { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct pf_cuda_and_f { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct pf_cuda_plus_f { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct pf_cuda_times_f { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct pf_cuda_min_f { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct pf_cuda_max_f { template <class T> __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
/* A block's partials of type T: one array for every fold of that type in the kernel (an
   array per fold, seven folds of 8-byte values passed the 48 KiB a block may hold). */
template <class T> __device__ inline T *pf_cuda_fold_part() {
    __shared__ T pf_part[1024];
    return pf_part;
}
/* A block's partials folded in a tree in shared memory (any block size CUDA allows, every
   thread of the block calling): the block's fold, for its thread 0. */
template <class T, class F> __device__ inline T pf_cuda_block_fold(T v, F f) {
    T *const pf_part = pf_cuda_fold_part<T>();
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned i = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned half = 1;
    while (2 * half < n) half *= 2;
    __syncthreads(); /* every thread has read the fold of this type before */
    pf_part[i] = v;
    __syncthreads();
    for (; half > 0; half /= 2) {
        if (i < half && i + half < n) pf_part[i] = f(pf_part[i], pf_part[i + half]);
        __syncthreads();
    }
    return pf_part[0];
}
template <class T> __device__ inline void pf_cuda_fold_xor(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_xor_f()); }
template <class T> __device__ inline void pf_cuda_fold_or(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_or_f()); }
template <class T> __device__ inline void pf_cuda_fold_and(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_and_f()); }
/* std::clamp's value on the device (its arguments of one type, as the library's). */
template <class T> __host__ __device__ inline T pf_clamp(T v, T lo, T hi) { return v < lo ? lo : hi < v ? hi : v; }
/* std::swap's exchange on the device. */
template <class T> __host__ __device__ inline void pf_swap(T &a, T &b) { T t = a; a = b; b = t; }
@MATH@
/* A waiting thread's pause (a lock, a running value, a barrier), so that what it waits for
   runs: a short sleep where the GPU has one (compute capability 7.0 on, every GPU CUDA 13
   builds for). */
__device__ inline void pf_cuda_pause() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
    __nanosleep(100);
#endif
}
/* Whether this block is the last of the launch to get here (its thread 0 calls, after its
   fold): every other block's writes are then visible, and it resets the count. */
__device__ inline bool pf_cuda_last_block(unsigned long long *done) {
    __threadfence();
    const unsigned long long blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    if (atomicAdd(done, 1ULL) + 1 != blocks) return false;
    __threadfence();
    *(volatile unsigned long long *)done = 0;
    return true;
}
/* An argmin's or argmax's candidate: whether a thread found one, its value and its index. */
template <class K, class I> struct pf_cuda_best { bool found; K key; I at; };
template <class K> struct pf_cuda_kept { int lock; int have; K key; };
template <class K, class I>
__device__ inline bool pf_cuda_beats(K key, I at, K other, I other_at, bool keeps_min, bool strict) {
    if (keeps_min ? key < other : other < key) return true;
    if (key == other) return strict ? at < other_at : other_at < at;  /* `<` keeps the earlier */
    return false;
}
/* Which of two candidates an argmin or argmax keeps (ties by index): the block tree's fold. */
struct pf_cuda_better {
    bool keeps_min, strict;
    template <class P> __device__ P operator()(P a, P b) const {
        return b.found && (!a.found || pf_cuda_beats(b.key, b.at, a.key, a.at, keeps_min, strict)) ? b : a;
    }
};
/* A block's best merged into the result under a lock (one thread per block takes it). */
template <class K, class I>
__device__ inline void pf_cuda_merge_best(pf_cuda_kept<K> *kept, I *out, pf_cuda_best<K, I> b, bool keeps_min, bool strict) {
    while (atomicCAS(&kept->lock, 0, 1) != 0) {
        pf_cuda_pause();
    }
    __threadfence();
    volatile pf_cuda_kept<K> *k = kept;
    volatile I *at = out;
    if (!k->have || pf_cuda_beats(b.key, b.at, (K)k->key, (I)*at, keeps_min, strict)) {
        k->key = b.key;
        *at = b.at;
        k->have = 1;
    }
    __threadfence();
    atomicExch(&kept->lock, 0);
}
/* A block's values scanned in shared memory (every thread of the block calling): the fold
   of the values of the threads before this one (the identity for thread 0); the block's
   total in *total. */
template <class T, class F> __device__ inline T pf_cuda_block_scan(T v, F f, T identity, T *total) {
    __shared__ T pf_scan_part[1024];
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned i = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    pf_scan_part[i] = v;
    __syncthreads();
    for (unsigned step = 1; step < n; step *= 2) {
        const T left = i >= step ? pf_scan_part[i - step] : identity;
        __syncthreads();
        if (i >= step) pf_scan_part[i] = f(left, pf_scan_part[i]);
        __syncthreads();
    }
    const T before = i > 0 ? pf_scan_part[i - 1] : identity;
    if (i == n - 1) *total = pf_scan_part[i];
    __syncthreads();
    return before;
}
template <class T> __device__ inline void pf_cuda_fold_times(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_times_f()); }
template <class T> __device__ inline void pf_cuda_fold_min(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_min_f()); }
template <class T> __device__ inline void pf_cuda_fold_max(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_max_f()); }
"""
_PROMOTED_ONE = (
    "sqrt", "cbrt", "fabs", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "atan",
    "asin", "acos", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc",
)  # fmt: skip
_PROMOTED_TWO = ("pow", "atan2", "fmod", "fmin", "fmax", "hypot")
PROMOTED = frozenset(_PROMOTED_ONE + _PROMOTED_TWO)
"""The math functions whose `std::` overloads take an integer as a `double`, and two arguments
of different types in their common type. CUDA's own overloads take `float` and `double`
only: on the device `sqrt(int)` reached libstdc++'s host-only template (an error in a
kernel; in a `__host__ __device__` helper a warning and the call dropped, the kernel built
without its stores). A kernel calls each as the helpers' `pf_<name>`, which converts so."""
HELPERS = HELPERS.replace(
    "@MATH@\n",
    "/* std's math on the device: an integer argument as a double, two arguments in their common\n"
    "   type, as the library's overloads take them (CUDA's own take float and double only). */\n"
    "template <class T>\n"
    "using pf_real_t = typename std::conditional<std::is_integral<T>::value, double, T>::type;\n"
    + "".join(
        f"template <class A> __host__ __device__ inline auto pf_{f}(A a) "
        f"{{ return {f}((pf_real_t<A>)a); }}\n"
        for f in _PROMOTED_ONE
    )
    + "".join(
        f"template <class A, class B> __host__ __device__ inline auto pf_{f}(A a, B b) {{\n"
        "    typedef typename std::common_type<pf_real_t<A>, pf_real_t<B>>::type T;\n"
        f"    return {f}((T)a, (T)b);\n}}\n"
        for f in _PROMOTED_TWO
    ),
)
"""What every kernel defines: atomics, folds, device versions of library calls."""
