from sandbox.checkers.ptxas import apply_names, parse_ptxas

# nvcc 13 -arch=sm_80 -Xptxas -v (one kernel compiled with -maxrregcount to force spills).
REPORT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'plain' for 'sm_80'
ptxas info    : Function properties for plain
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]
ptxas info    : Compile time = 18.001 ms
ptxas info    : Function properties for _Z6helperf
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z4tilePfPKf' for 'sm_80'
ptxas info    : Function properties for _Z4tilePfPKf
    256 bytes stack frame, 24 bytes spill stores, 32 bytes spill loads
ptxas info    : Used 16 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem, 368 bytes cmem[0], 8 bytes cmem[2]
"""


def test_kernels_with_registers_shared_memory_and_spills():
    plain, tile = parse_ptxas(REPORT)
    assert (plain.name, plain.registers, plain.shared_bytes, plain.constant_bytes) == (
        "plain",
        8,
        0,
        360,
    )
    assert tile.name == "_Z4tilePfPKf"
    assert (tile.registers, tile.shared_bytes, tile.constant_bytes, tile.stack_bytes) == (
        16,
        1024,
        376,
        256,
    )
    assert (tile.spill_stores_bytes, tile.spill_loads_bytes) == (24, 32)


def test_device_functions_are_not_kernels_and_names_can_be_demangled():
    kernels = parse_ptxas(REPORT)
    assert [k.name for k in kernels] == ["plain", "_Z4tilePfPKf"]
    named = apply_names(kernels, {"_Z4tilePfPKf": "tile(float*, float const*)"})
    assert [k.name for k in named] == ["plain", "tile(float*, float const*)"]
    assert named[1].registers == 16


def test_no_report_no_kernels():
    assert parse_ptxas("") == []
