"""verify() on CUDA candidates: nvcc diagnostics, the ptxas resource report, GPU or no GPU."""

from __future__ import annotations

from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify

REFERENCE = r"""
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

GOOD = r"""
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


def spec() -> Spec:
    return Spec(
        name="axpb",
        language="c",
        reference=REFERENCE,
        tests=[TestCase(name="small", args=["1000"])],
    )


async def test_nvcc_errors_are_diagnostics(verify_sandbox):
    broken = GOOD.replace("y[i] = a * x[i] + 1.0f;", "y[i] = a * x[i] + undefined_offset;")
    v = await verify(verify_sandbox, spec(), Candidate(target=Target.CUDA, source=broken))
    assert v.status is Status.BUILD_FAILED
    [error] = [d for d in v.build.diagnostics if d.severity == "error"]
    assert (error.file, error.line) == ("main.cu", 6)
    assert "undefined_offset" in error.message


async def test_resource_report_and_gpu_or_not(verify_sandbox):
    v = await verify(verify_sandbox, spec(), Candidate(target=Target.CUDA, source=GOOD))
    assert v.build is not None and v.build.ok
    kernels = {k.name: k for k in v.build.kernels}
    assert set(kernels) == {
        "axpb(float, float const*, float*, int)",
        "block_sum(float const*, double*, int)",
    }
    assert all(k.registers > 0 for k in kernels.values())
    assert kernels["block_sum(float const*, double*, int)"].shared_bytes == 256 * 8
    assert v.source_check is not None and "kernel launch" in v.source_check.found
    if verify_sandbox.info().gpu:
        assert v.status is Status.PASSED, v.reason
        assert v.concurrency is not None and v.concurrency.tools == ["compute-sanitizer"]
    else:
        assert v.status is Status.NOT_RUN
        assert v.reason == "not run: no GPU"
        assert v.equivalence is not None and v.equivalence.not_run == "not run: no GPU"
        assert v.concurrency is not None and v.concurrency.not_run == "not run: no GPU"
        assert v.timing is None


async def test_no_kernel_is_not_parallel(verify_sandbox):
    host_only = '#include <cstdio>\nint main() { std::printf("1\\n"); return 0; }\n'
    v = await verify(verify_sandbox, spec(), Candidate(target=Target.CUDA, source=host_only))
    assert v.status is Status.NOT_PARALLEL
