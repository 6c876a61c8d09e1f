"""verify() on CUDA candidates: nvcc diagnostics, the ptxas resource report, GPU or no GPU."""

from __future__ import annotations

from sandbox.spec import Candidate, Target
from sandbox.verdict import Status
from sandbox.verify import verify
from tests.fakes.programs import CUDA_GOOD, cuda_spec


async def test_nvcc_errors_are_diagnostics(verify_sandbox):
    broken = CUDA_GOOD.replace("y[i] = a * x[i] + 1.0f;", "y[i] = a * x[i] + undefined_offset;")
    v = await verify(verify_sandbox, cuda_spec(), Candidate(target=Target.CUDA, source=broken))
    assert v.status is Status.BUILD_FAILED
    [error] = [d for d in v.build.diagnostics if d.severity == "error"]
    assert (error.file, error.line) == ("main.cu", 6)
    assert "undefined_offset" in error.message


async def test_resource_report_and_gpu_or_not(verify_sandbox):
    v = await verify(verify_sandbox, cuda_spec(), Candidate(target=Target.CUDA, source=CUDA_GOOD))
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
    v = await verify(verify_sandbox, cuda_spec(), Candidate(target=Target.CUDA, source=host_only))
    assert v.status is Status.NOT_PARALLEL
