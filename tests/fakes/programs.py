"""Programs and specs several tests share: an OpenMP sum of squares (one template, candidates by
body), a CUDA kernel pair with its reference, and small OpenMP sums for the reasoning tests."""

from __future__ import annotations

from sandbox.spec import Spec, TestCase, Tolerance

# --- OpenMP: a sum of squares --------------------------------------------------------------

OPENMP_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = (i % 10) * 0.1;
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    printf("sum %.12f\n", s);
    free(x);
    return 0;
}
"""

# The body every candidate shares; BODY is replaced per candidate.
OPENMP_TEMPLATE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = (i % 10) * 0.1;
    double s = 0;
BODY
    printf("sum %.12f\n", s);
    free(x);
    return 0;
}
"""

OPENMP_GOOD = """
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++) s += x[i] * x[i];
"""


def openmp_spec(**overrides) -> Spec:
    # Tiny inputs: a planted race almost never changes the output, so the tests pass and the
    # race checker is what has to find it.
    fields = dict(
        name="sumsq",
        language="c",
        reference=OPENMP_REFERENCE,
        tests=[TestCase(name="tiny", args=["8"]), TestCase(name="small", args=["40"])],
        tolerance=Tolerance(rtol=1e-9),
        threads=[1, 2, 4],
        timeout_s=10,
        timing_repeats=2,
    )
    fields.update(overrides)
    return Spec.model_validate(fields)


# --- CUDA: y = 2x + 1, summed by a block reduction -----------------------------------------

CUDA_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double s = 0;
    for (int i = 0; i < n; i++) s += 2.0 * i + 1.0;
    printf("%.1f\n", s);
    return 0;
}
"""

CUDA_GOOD = r"""
#include <cstdio>
#include <cstdlib>
__global__ void axpb(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
__global__ void block_sum(const float *y, double *out, int n) {
    __shared__ double part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? y[i] : 0.0;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    float *x, *y; double *out;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    cudaMallocManaged(&out, sizeof(double));
    for (int i = 0; i < n; i++) x[i] = (float)i;
    *out = 0;
    int blocks = (n + 255) / 256;
    axpb<<<blocks, 256>>>(2.0f, x, y, n);
    block_sum<<<blocks, 256>>>(y, out, n);
    cudaDeviceSynchronize();
    printf("%.1f\n", *out);
    return 0;
}
"""


def cuda_spec() -> Spec:
    return Spec(
        name="axpb",
        language="c",
        reference=CUDA_REFERENCE,
        tests=[TestCase(name="small", args=["1000"])],
    )


# --- small OpenMP sums: equal up to names and layout, or different --------------------------

SUM = """#include <stdio.h>
int main(void) {
    double total = 0.0;  /* the sum */
    #pragma omp parallel for reduction(+:total) schedule(static)
    for (int i = 0; i < 1000; i++)
        total += i * 0.5;
    printf("%.1f\\n", total);
    return 0;
}
"""
# The same program: other names, other numbers, other layout, clauses in another order.
SUM_RENAMED = """#include <stdio.h>
int main(void)
{
  double acc = 0.0;
  #pragma omp parallel for schedule(static) reduction(+: acc)
  for (int k = 0; k < 4096; k++) acc += k * 0.25;   // accumulate
  printf("%.1f\\n", acc);
  return 0;
}
"""
# A different program: an atomic update instead of a reduction.
SUM_ATOMIC = """#include <stdio.h>
int main(void) {
    double total = 0.0;
    #pragma omp parallel for
    for (int i = 0; i < 1000; i++) {
        #pragma omp atomic
        total += i * 0.5;
    }
    printf("%.1f\\n", total);
    return 0;
}
"""
