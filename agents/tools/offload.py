"""`offload`: a CUDA candidate from the loops the analysis proves (no model-written code).

The CUDA counterpart of `annotate` and `distribute`: each chosen loop becomes a grid-stride
kernel whose parameters are the names its body uses, reductions folded per block in shared
memory and once per block atomically, histograms updated atomically, heap memory managed (see
`agents.analysis.offload`). The model, where asked, only picks which offered loops to move.
For a task whose driver launches a kernel of its own signature (`Spec.signature`), the
function's one loop becomes that kernel (`agents.analysis.kernels`).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from agents.analysis.errors import AnnotationError
from agents.analysis.kernels import kernel, kernel_loop, signature_params
from agents.analysis.offload import offload, offloadable
from agents.targets.lowered import with_most_loops
from agents.tools.annotate import CandidateResult
from agents.tools.base import ToolContext, ToolError
from agents.tools.distribute import LoopToolArgs, from_function, from_loops
from sandbox.spec import Target


class Offload:
    name: ClassVar[str] = "offload"
    description: ClassVar[str] = (
        "Make a CUDA candidate by running the loops the analysis proves as GPU kernels (one "
        'thread per iteration, reductions and histograms combined atomically); mode "model" '
        'lets the model pick the loops, "analysis" takes every one it can.'
    )
    Args: ClassVar[type[BaseModel]] = LoopToolArgs

    async def run(self, args: LoopToolArgs, ctx: ToolContext) -> CandidateResult:
        view = ctx.view
        signature = view.spec.signature
        if signature is not None:
            # A driver launches a kernel of its own signature: the function's one loop
            # becomes that kernel, or there is no candidate (nothing to choose among).
            name = signature_params(signature)[0]
            try:
                code = kernel(view.source, view.program, name, signature)
            except AnnotationError as exc:
                raise ToolError(f"offload: {exc}") from exc
            try:
                loop = kernel_loop(view.source, view.program, name)
            except AnnotationError:
                # a kernel that runs none of the function's loops: a library call's own
                # parallel form (a sort's network)
                return await from_function(
                    ctx, tool=self.name, function=name, source=code, shape="network"
                )
            return await from_loops(
                ctx,
                args.model_copy(update={"mode": "analysis"}),
                tool=self.name,
                target=Target.CUDA,
                offered=[loop],
                write=lambda ids: code,
                how="",
                cost="",
                shape="driver-kernel",
            )
        # Standard algorithms, searches and helper lambdas: the loops they run, offered as any
        # loops are, where that offers more.
        try:
            source, program, offered = with_most_loops(
                view.source, view.program, offloadable, args.function or view.function, counted=True
            )
        except AnnotationError as exc:
            raise ToolError(f"offload: {exc}") from exc
        return await from_loops(
            ctx,
            args,
            tool=self.name,
            target=Target.CUDA,
            offered=offered,
            write=lambda ids: offload(source, program, ids),
            shown=(source, program),
            how="run as CUDA kernels (the tool writes the kernel, its launch and the data "
            "movement)",
            cost="each kernel launch and synchronisation costs some microseconds, so a short "
            "loop is cheaper left on the host",
            shape="grid-stride",
        )
