"""nvcc's `-Xptxas -v` resource report as one `KernelResources` per kernel.

ptxas info    : Compiling entry function '_Z4tilePfPKf' for 'sm_80'
ptxas info    : Function properties for _Z4tilePfPKf
    256 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
"""

from __future__ import annotations

import re

from sandbox.verdict import KernelResources

_ENTRY = re.compile(r"ptxas info\s*: Compiling entry function '(?P<name>[^']+)'")
_PROPS = re.compile(r"ptxas info\s*: Function properties for (?P<name>\S+)")
_FRAME = re.compile(
    r"(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, (?P<loads>\d+) bytes spill loads"
)
_USED = re.compile(r"ptxas info\s*: Used (?P<regs>\d+) registers(?P<rest>.*)$")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[\d+\]")


def parse_ptxas(text: str) -> list[KernelResources]:
    """Kernels (entry functions) in report order; device functions' properties are skipped."""
    kernels: dict[str, KernelResources] = {}
    current: str | None = None  # the entry function the following lines describe
    props_for: str | None = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            current = m.group("name")
            kernels.setdefault(current, KernelResources(name=current))
            props_for = None
        elif m := _PROPS.search(line):
            props_for = m.group("name")
        elif (m := _FRAME.search(line)) and props_for in kernels:
            k = kernels[props_for]
            k.stack_bytes = int(m.group("stack"))
            k.spill_stores_bytes = int(m.group("stores"))
            k.spill_loads_bytes = int(m.group("loads"))
        elif (m := _USED.search(line)) and current is not None:
            k = kernels[current]
            k.registers = int(m.group("regs"))
            rest = m.group("rest")
            k.shared_bytes = sum(int(x) for x in _SMEM.findall(rest))
            k.constant_bytes = sum(int(x) for x in _CMEM.findall(rest))
            current = None
    return list(kernels.values())


def apply_names(kernels: list[KernelResources], demangled: dict[str, str]) -> list[KernelResources]:
    """The same kernels under readable names (`saxpy(float, float const*)` for `_Z5saxpyfPKf`)."""
    return [k.model_copy(update={"name": demangled.get(k.name, k.name)}) for k in kernels]
