"""The CUDA kit: its evolution neighbours are the block sizes of its kernel launches."""

from __future__ import annotations

import pytest

from agents.targets import kit
from agents.targets.cuda import BLOCK_SIZES
from sandbox.spec import Language, Target

CUDA = kit(Target.CUDA)

PROGRAM = """#include <cstdio>
#define BLOCK 256

__global__ void twice(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= 2;
}

int main() {
    int n = 1000;
    float *a;
    cudaMalloc(&a, n * sizeof(float));
    twice<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, n);
    cudaDeviceSynchronize();
    return 0;
}
"""


def test_a_block_size_constant_gets_the_other_sizes() -> None:
    mutations = CUDA.mutations(PROGRAM, Language.CUDA)
    assert [m.operator for m in mutations] == ["block_size"] * 4
    sizes = [size for size in BLOCK_SIZES if size != 256]
    assert [m.source.split("\n")[1] for m in mutations] == [f"#define BLOCK {s}" for s in sizes]
    assert all(m.source.count("BLOCK") == PROGRAM.count("BLOCK") for m in mutations)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("#define BLOCK 256", "const int BLOCK = 256;"),
        ("    int n = 1000;", "    constexpr int BLOCK = 256;\n    int n = 1000;"),
    ],
)
def test_a_block_size_declared_as_an_integer_constant(old: str, new: str) -> None:
    program = PROGRAM.replace(old, new)
    if not old.startswith("#define"):
        program = program.replace("#define BLOCK 256\n", "")
    mutations = CUDA.mutations(program, Language.CUDA)
    assert [m.label for m in mutations] == [
        f"BLOCK: block size 256 -> {s}" for s in BLOCK_SIZES if s != 256
    ]
    assert "BLOCK = 1024;" in mutations[-1].source


def test_a_literal_block_size_is_left_alone() -> None:
    literal = PROGRAM.replace("(n + BLOCK - 1) / BLOCK, BLOCK", "(n + 255) / 256, 256")
    assert CUDA.mutations(literal, Language.CUDA) == []
    assigned = PROGRAM.replace("int n = 1000;", "int n = 1000;\n    BLOCK = 128;").replace(
        "#define BLOCK 256", "int BLOCK = 256;"
    )
    assert CUDA.mutations(assigned, Language.CUDA) == []


def test_the_same_input_gives_the_same_list() -> None:
    assert CUDA.mutations(PROGRAM, Language.CUDA) == CUDA.mutations(PROGRAM, Language.CUDA)
