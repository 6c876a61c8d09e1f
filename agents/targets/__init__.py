"""One kit per target: what OpenMP, MPI and CUDA each need above the verifier.

A new tool for one target is its file in `agents/tools/` and its name in the target's kit; a
new target is a kit module and its line in `KITS`.
"""

from agents.targets.base import Draft, Kept, Kit, Mutation
from agents.targets.cuda import Cuda
from agents.targets.mpi import Mpi
from agents.targets.openmp import OpenMP
from sandbox.spec import Target

KITS: dict[Target, Kit] = {kit.target: kit for kit in (OpenMP(), Mpi(), Cuda())}


def kit(target: Target) -> Kit:
    """The kit of `target`."""
    try:
        return KITS[target]
    except KeyError:
        raise ValueError(f"no kit for target {target.value!r}") from None


__all__ = ["KITS", "Draft", "Kept", "Kit", "Mutation", "kit"]
