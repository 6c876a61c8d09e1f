"""OpenMP: threads sharing memory, parallelised by directives.

The one target with a tool that writes no model text (`annotate`: the dependence analysis's
facts turned into directives), so its default plan leads with annotated candidates where the
analysis finds a loop it can annotate. Its evolution neighbours for a program a model wrote are
the `schedule` and `proc_bind` clauses and `simd` of its `omp for` directives; `simd` only where
the dependence analysis proves the loop's iterations independent (ThreadSanitizer sees races
between threads, not between the SIMD lanes of one thread).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from tree_sitter import Node

from agents.analysis.annotate import CHUNKS, SCHEDULES, _simd_allowed
from agents.analysis.errors import AnalysisError
from agents.analysis.model import Loop, Program
from agents.analysis.parse import parse_int, past_parentheses, syntax_tree, text, walk
from agents.analysis.program import analyse
from agents.targets.base import Draft, Kept, Kit, Mutation
from sandbox.spec import Language, Target

BINDINGS: tuple[str | None, ...] = (None, "close", "spread")
"""The `proc_bind` values tried (None: the implementation's default, no clause)."""

_SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")


class OpenMP(Kit):
    target: ClassVar[Target] = Target.OPENMP
    name: ClassVar[str] = "OpenMP"
    unit: ClassVar[str | None] = "thread"
    strategies: ClassVar[tuple[str, ...]] = (
        "parallel for on the outermost independent loops, with reduction clauses",
        "two-pass blocked scan: per-thread partial sums, then an exclusive scan of the block "
        "totals, then a second parallel pass",
        "privatised per-thread histograms merged at the end",
        "OpenMP tasks for recursive or irregular work",
        "collapse(2) over perfectly nested loops with a static schedule",
        "dynamic or guided schedule for loops whose iterations cost unevenly",
        "parallel for on the outer loop and simd on the innermost loop",
    )
    tools: ClassVar[tuple[str, ...]] = ("annotate",)
    rules: ClassVar[tuple[str, ...]] = (
        "Parallelize the loops that carry the work with OpenMP directives (`#pragma omp "
        "parallel for` and related constructs); include <omp.h> if you call OpenMP functions.",
        "Give every variable the right data-sharing: variables declared inside the loop are "
        "private, sums and maxima go through `reduction` clauses, a value kept from the last "
        "iteration that sets it goes through `lastprivate` (`lastprivate(conditional: x)` when "
        "only some iterations set it), and no thread writes shared data that another thread "
        "reads or writes without synchronization.",
        "Do not fix the thread count in the code (no `num_threads` clause, no "
        "`omp_set_num_threads`): it is set through OMP_NUM_THREADS, and the output must be the "
        "same at every thread count.",
        "Keep loops whose iterations depend on each other (time steps, recurrences) sequential "
        "and parallelize the independent work inside them.",
    )
    checks: ClassVar[str] = "a data-race check with ThreadSanitizer and Archer"

    def build_line(self, language: Language) -> str:
        compiler = "gcc" if language is Language.C else "g++"
        return f"{compiler} -O2 -fopenmp, and run with OMP_NUM_THREADS=N"

    def counts(self, threads: Sequence[int], ranks: Sequence[int]) -> Sequence[int] | None:
        return threads

    def mechanical(self, source: str, program: Program, signature: str | None = None) -> bool:
        return any(loop.dependence.annotatable for loop in program.loops)

    def candidates(self, plan: Draft, *, annotatable: bool, use_model: bool) -> list[str]:
        """Where the analysis can annotate a loop: the model's choice of directives, the
        analysis's plain one and a rewrite (without a model, the analysis's alone)."""
        if not annotatable:
            return super().candidates(plan, annotatable=annotatable, use_model=use_model)
        plain = "the analysis's plain choice"
        if not use_model:
            return [plan.add("annotate", plain, mode="analysis")]
        examples = plan.add("examples", "verified code of similar loops")
        return [
            plan.add("annotate", "the model picks directives", mode="model", examples=examples),
            plan.add("annotate", plain, mode="analysis"),
            plan.add("rewrite", "a whole-program rewrite", strategy="", examples=examples),
        ]

    def descriptor(self, lines: Sequence[str]) -> tuple[str, int]:
        """The schedule kinds its directives use (and `simd`), and its `parallel` regions."""
        pragmas = [line for line in lines if line.startswith("#pragma") and " omp " in line + " "]
        kinds = sorted(
            {kind for line in pragmas for kind in _SCHEDULE_KINDS if f"schedule({kind}" in line}
        )
        if any(" simd" in line for line in pragmas):
            kinds.append("simd")
        return "+".join(kinds) or "default", sum(1 for line in pragmas if " parallel" in line)

    def mutations(self, source: str, language: Language) -> list[Mutation]:
        """The schedule clause (kinds x chunks) of each `omp for` / `omp parallel for`
        directive, its `proc_bind` (a `parallel for` only) and `simd` (a `parallel for` whose
        loop the analysis proves fit for it)."""
        return _directive_mutations(source, language)


def can_annotate(loop: Loop) -> bool:
    """Whether the annotation tool may put a directive on `loop`."""
    return loop.canonical and loop.dependence.annotatable


def schedule_text(kind: str, chunk: int | None) -> str:
    """A schedule as its clause spells it (`dynamic,16`)."""
    return kind if chunk is None else f"{kind},{chunk}"


# --- directives a model wrote ---------------------------------------------------------------

_WORKSHARING = {("parallel", "for"), ("parallel", "for", "simd"), ("for",), ("for", "simd")}
# An ordered loop runs in order, `nowait` loops may rely on two static schedules pairing the
# same iterations with the same threads, and an inscan reduction belongs to a scan directive:
# a different schedule could break any of them.
_UNTOUCHED = frozenset({"ordered", "critical", "atomic", "task", "sections", "nowait"})


@dataclass(frozen=True)
class _Token:
    """A word or clause of a directive: its name, its span in the directive's text and the
    text inside its parentheses (None without them)."""

    name: str
    start: int
    end: int
    args: str | None


@dataclass(frozen=True)
class _Pragma:
    """An `omp for` directive: the span of its text after `#pragma` in the UTF-8 source."""

    row: int
    """0-based line."""
    start: int
    end: int
    text: str
    words: tuple[_Token, ...]
    clauses: tuple[_Token, ...]

    @property
    def simd_free(self) -> bool:
        """A `parallel for` without simd (simd could be added)."""
        return tuple(w.name for w in self.words) == ("parallel", "for")

    def clause(self, name: str) -> _Token | None:
        return next((c for c in self.clauses if c.name == name), None)

    def edited(self, source: bytes, start: int, end: int, new: str) -> str:
        """The source with the directive's text from `start` to `end` replaced by `new`."""
        changed = self.text[:start] + new + self.text[end:]
        return (source[: self.start] + changed.encode() + source[self.end :]).decode()

    def set_clause(self, source: bytes, name: str, value: str | None) -> str:
        """The source with clause `name(value)` set (added at the end when absent), or gone."""
        old = self.clause(name)
        if old is None:
            at = self.clauses[-1].end if self.clauses else self.words[-1].end
            return self.edited(source, at, at, f" {name}({value})")
        if value is None:
            # The separator before it goes too (clauses may be separated by commas).
            start = len(self.text[: old.start].rstrip().removesuffix(",").rstrip())
            return self.edited(source, start, old.end, "")
        return self.edited(source, old.start, old.end, f"{name}({value})")


def _directive_mutations(source: str, language: Language) -> list[Mutation]:
    raw = source.encode()
    found = list(_directives(syntax_tree(source, language).root_node))
    omp_rows = {row for row, _ in found}
    pragmas = [pragma for _, pragma in found if pragma is not None]
    program = None
    if any(pragma.simd_free for pragma in pragmas):
        try:
            program = analyse(source, language)
        except AnalysisError:
            program = None
    kept = Kept(source)
    for pragma in pragmas:
        line = f"line {pragma.row + 1}"
        schedule = pragma.clause("schedule")
        current = _parsed_schedule(schedule.args if schedule else None)
        was = schedule_text(*current) if current else schedule.args if schedule else "none"
        for kind in SCHEDULES:
            for chunk in CHUNKS:
                if (kind, chunk) != current:
                    new = schedule_text(kind, chunk)
                    mutated = pragma.set_clause(raw, "schedule", new)
                    kept.keep(Mutation("schedule", f"{line}: schedule {was} -> {new}", mutated))
        if pragma.words[0].name != "parallel":
            continue
        bound = pragma.clause("proc_bind")
        binding = (bound.args or "").strip() if bound else None
        for bind in BINDINGS:
            if bind != binding:
                mutated = pragma.set_clause(raw, "proc_bind", bind)
                label = f"{line}: proc_bind {binding or 'none'} -> {bind or 'none'}"
                kept.keep(Mutation("proc_bind", label, mutated))
        if (
            program is not None
            and pragma.simd_free
            and _simd_fits(program, pragma, source, omp_rows)
        ):
            at = pragma.words[-1].end
            mutated = pragma.edited(raw, at, at, " simd")
            kept.keep(Mutation("simd", f"{line}: parallel for -> parallel for simd", mutated))
    return kept.mutations


def _directives(root: Node) -> Iterator[tuple[int, _Pragma | None]]:
    """Per `#pragma omp` directive, its 0-based first row and, when it is an `omp for` loop
    on one line that this module may edit, the directive (a continued one is not worth the
    risk)."""
    for node in walk(root):
        directive = node.child_by_field_name("directive")
        argument = node.child_by_field_name("argument")
        if node.type != "preproc_call" or directive is None or argument is None:
            continue
        body = text(argument)
        tokens = _tokens(body)
        if "".join(text(directive).split()) != "#pragma" or body.split()[:1] != ["omp"]:
            continue
        row = argument.start_point.row
        words = tuple(t for t in tokens[1:] if t.name in ("parallel", "for", "simd"))
        clauses = tuple(tokens[1 + len(words) :])
        editable = (
            "\\" not in body
            and argument.end_point.row == row
            and tokens[1 : 1 + len(words)] == list(words)
            and tuple(w.name for w in words) in _WORKSHARING
            and not any(c.name in _UNTOUCHED or "inscan" in (c.args or "") for c in clauses)
        )
        pragma = _Pragma(row, argument.start_byte, argument.end_byte, body, words, clauses)
        yield row, pragma if editable else None


def _tokens(body: str) -> list[_Token]:
    """The words and clauses of a directive's text, up to a comment; empty when something in
    it is neither (the directive is then left alone)."""
    found: list[_Token] = []
    i = 0
    while i < len(body):
        if body[i].isspace() or body[i] == ",":
            i += 1
            continue
        if body.startswith(("//", "/*"), i):
            break
        start = i
        while i < len(body) and (body[i].isalnum() or body[i] == "_"):
            i += 1
        if i == start:
            return []
        name, args = body[start:i], None
        j = i
        while j < len(body) and body[j] == " ":
            j += 1
        if j < len(body) and body[j] == "(":
            k = past_parentheses(body, j)
            if k is None:
                return []
            args, i = body[j + 1 : k - 1], k
        found.append(_Token(name, start, i, args))
    return found


def _parsed_schedule(args: str | None) -> tuple[str, int | None] | None:
    """`static` or `dynamic, 16` as (kind, chunk) when it is one of the menu's; else None."""
    if args is None:
        return None
    kind, _, chunk = (part.strip() for part in args.partition(","))
    size = parse_int(chunk) if chunk else None
    if kind not in SCHEDULES or (chunk and size not in CHUNKS):
        return None
    return kind, size


def _simd_fits(program: Program, pragma: _Pragma, source: str, omp_rows: set[int]) -> bool:
    """Whether the loop under a `parallel for` (on the next non-blank line) may take simd: the
    analysis finds it annotatable and fit for simd, no OpenMP directive inside it (an atomic or
    critical update is no lane-safe reduction), and every reduction the analysis finds named
    in the directive's reduction clauses (else the threads would already race)."""
    lines = source.split("\n")
    row = next((r for r in range(pragma.row + 1, len(lines)) if lines[r].strip()), None)
    here = [loop for loop in program.loops if row is not None and loop.line == row + 1]
    if not here:
        return False
    loop = min(here, key=lambda candidate: candidate.column)
    if not (can_annotate(loop) and _simd_allowed(loop)):
        return False
    if any(loop.line <= r + 1 <= loop.end_line for r in omp_rows):
        return False
    reduced = {
        name.strip().split("[")[0]
        for c in pragma.clauses
        if c.name == "reduction" and c.args
        for name in c.args.partition(":")[2].split(",")
    }
    dep = loop.dependence
    names = [r.var for r in dep.reductions] + [a.var for a in dep.array_reductions]
    return all(name in reduced for name in names)
