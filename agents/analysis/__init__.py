"""Program analysis for C and C++ (pure: no I/O): a tree-sitter front end, loops and their
dependence verdicts, OpenMP annotation from a small menu of choices, and code normalisation.

    program = analyse(source, Language.C)
    for loop in annotatable(program):
        print(loop.id, loop.line, loop.dependence.kind, loop.dependence.reason)
    choices = default_choices(annotatable(program))
    parallel = apply_choices(source, program, choices)
"""

from agents.analysis.annotate import (
    CHUNKS,
    LoopChoice,
    annotatable,
    apply_choices,
    choice_schema,
    default_choices,
    directive,
)
from agents.analysis.errors import AnalysisError, AnnotationError, InputError
from agents.analysis.model import Access, Dependence, Function, Loop, Program, Reduction
from agents.analysis.normalise import normalise
from agents.analysis.program import analyse, function_source

__all__ = [
    "CHUNKS",
    "Access",
    "AnalysisError",
    "AnnotationError",
    "Dependence",
    "Function",
    "InputError",
    "Loop",
    "LoopChoice",
    "Program",
    "Reduction",
    "analyse",
    "annotatable",
    "apply_choices",
    "choice_schema",
    "default_choices",
    "directive",
    "function_source",
    "normalise",
]
