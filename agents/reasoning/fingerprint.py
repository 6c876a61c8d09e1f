"""Fingerprints of code a thread has written so far, for pruning threads that converge.

`shape` turns code, complete or cut off mid-line, into abstract tokens: comments gone, every
variable renamed by order of first appearance (`v0`, `v1`, ...), lambdas held in variables and
variables the parser takes for types (`std::vector<int> p(n)`) included, numbers and strings
reduced to a placeholder, OpenMP directives in canonical form, called functions, members and
types kept, and runs of declarations that mean the same in any order (`independent_runs`) put in
one canonical order. Two threads
whose shapes agree on what both have written have converged on one program, whatever they named
things: the one behind is pruned (DeepPrune's observation that most parallel traces converge,
with the code's own structure as the judge instead of a model).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from tree_sitter import Node

from agents.analysis.normalise import canonical_pragma
from agents.analysis.parse import syntax_tree, text
from sandbox.spec import Language

_NAMES = frozenset({"identifier"})
"""Names renamed by first appearance; members (`x.size()`, `blockIdx.x`) are kept as they are,
in a namespace of their own, so renaming a variable `x` cannot shift them."""
# Inside a directive's clauses: the parenthesised arguments, and the words in them that are
# the clauses' own vocabulary rather than the program's variables.
_ARGUMENT = re.compile(r"\([^()]*\)")
_WORD = re.compile(r"[A-Za-z_]\w*")
_ANY_NAME = re.compile(r"\bv\d+\b")
_CLAUSE_WORDS = frozenset(
    [
        "static",
        "dynamic",
        "guided",
        "auto",
        "runtime",
        "monotonic",
        "nonmonotonic",
        "simd",
        "inscan",
        "task",
        "none",
        "shared",
        "private",
        "firstprivate",
        "min",
        "max",
        "conditional",
    ]
)
_LITERAL_STRINGS = frozenset(
    {"string_literal", "char_literal", "raw_string_literal", "concatenated_string"}
)


def code_part(reply: str) -> str:
    """The code in a reply written so far: inside the first fence (open or closed), else all."""
    start = reply.find("```")
    if start < 0:
        return reply
    body_start = reply.find("\n", start)
    if body_start < 0:
        return ""  # the fence's own line is still being written
    end = reply.find("```", body_start)
    return reply[body_start + 1 : end if end >= 0 else len(reply)]


def shape(code: str, language: Language) -> list[str]:
    """The abstract tokens of `code` (any text; a broken or partial program too)."""
    out: list[str] = []
    names: dict[str, str] = {}
    _walk(syntax_tree(code, language).root_node, out, names)
    return out


def _walk(node: Node, out: list[str], names: dict[str, str]) -> None:
    kind = node.type
    if kind == "comment":
        return
    if kind in _LITERAL_STRINGS:
        out.append("S")
        return
    if kind == "preproc_call" and _pragma_omp(node):
        argument = node.child_by_field_name("argument")
        pragma = canonical_pragma(text(argument) if argument is not None else "")
        out.append(_ARGUMENT.sub(lambda m: _rename_all(m, names), pragma))
        return
    if kind == "compound_statement":
        _walk_block(node, out, names)
        return
    if node.child_count == 0:
        token = text(node).strip()
        if not token:
            return
        if kind == "number_literal":
            out.append("0")
        elif kind in _NAMES and (not _called(node) or token in names):
            # A called name is a function's, kept, unless it is a variable seen before (a
            # lambda held in a variable).
            out.append(names.setdefault(token, f"v{len(names)}"))
        elif kind == "type_identifier" and token in names:
            out.append(names[token])  # a variable the parser took for a type: `v(n)`
        else:
            out.append(token)
        return
    for child in node.children:
        _walk(child, out, names)


def _walk_block(block: Node, out: list[str], names: dict[str, str]) -> None:
    """A block, each of its independent runs in canonical order: the run's variables named in
    the order the rest of the block first uses them (the same whatever order they were
    declared in), then its declarations sorted by their shapes."""
    runs = {run[0].id: run for run in independent_runs(block)}
    children = block.children
    i = 0
    while i < len(children):
        run = runs.get(children[i].id)
        if run is None:
            _walk(children[i], out, names)
            i += 1
            continue
        declared = {name for member in run for name in declared_names(member)}
        ahead = dict(names)
        for later in children[i + len(run) :]:
            _walk(later, [], ahead)
        for name in ahead:
            if name in declared:
                names.setdefault(name, f"v{len(names)}")

        def key(member: Node) -> list[str]:
            tokens: list[str] = []
            _walk(member, tokens, dict(names))
            return tokens

        for member in sorted(run, key=key):
            _walk(member, out, names)
        i += len(run)


def independent_runs(block: Node) -> list[list[Node]]:
    """Runs of two or more adjacent declarations in a block (`{ ... }`) that mean the same in
    any order: none calls a function or holds code of its own (a lambda), and none reads or
    declares a name that another one in the run declares."""
    runs: list[list[Node]] = []
    run: list[Node] = []
    declared: set[str] = set()  # what the run's declarations declare
    named: set[str] = set()  # and every name they hold
    for child in block.named_children:
        if not _swappable(child):
            runs += [run] if len(run) > 1 else []
            run, declared, named = [], set(), set()
            continue
        mine, declares = _names_in(child), declared_names(child)
        if mine & declared or declares & named:  # it depends on the run: a new run starts
            runs += [run] if len(run) > 1 else []
            run, declared, named = [], set(), set()
        run.append(child)
        declared |= declares
        named |= mine
    runs += [run] if len(run) > 1 else []
    return runs


def declared_names(declaration: Node) -> set[str]:
    """The variables one declaration declares (`int a = 0, *b;` -> a, b)."""
    names: set[str] = set()
    for declarator in declaration.children_by_field_name("declarator"):
        target: Node | None = declarator
        while target is not None and target.type in _WRAPPING_DECLARATORS:
            inner = target.child_by_field_name("declarator")
            if inner is None:  # a reference declarator names its identifier as a child
                inner = next((c for c in target.children if c.type == "identifier"), None)
            target = inner
        if target is not None and target.type == "identifier":
            names.add(text(target))
    return names


_WRAPPING_DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "init_declarator",
        "function_declarator",  # `std::vector<int> p(n);` read as a function declaration
    }
)
_NOT_SWAPPABLE = frozenset(
    {"call_expression", "compound_statement", "lambda_expression", "ERROR", "new_expression"}
)


def _swappable(node: Node) -> bool:
    if node.type != "declaration" or not declared_names(node):
        return False
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if current.type in _NOT_SWAPPABLE:
            return False
        stack.extend(current.children)
    return True


def _names_in(node: Node) -> set[str]:
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier"):
            names.add(text(current))
        stack.extend(current.children)
    return names


def _rename_all(match: re.Match[str], names: dict[str, str]) -> str:
    """A clause's arguments with the program's variables renamed as in the code."""

    def rename(word: re.Match[str]) -> str:
        name = word.group(0)
        if name in _CLAUSE_WORDS:
            return name
        return names.setdefault(name, f"v{len(names)}")

    return _WORD.sub(rename, match.group(0))


def _pragma_omp(node: Node) -> bool:
    argument = node.child_by_field_name("argument")
    return argument is not None and text(argument).split()[:1] == ["omp"]


def _called(node: Node) -> bool:
    """Is this name the function of a call (`printf`, `omp_get_wtime`): kept, not renamed."""
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and parent.children[0] == node


def similarity(a: list[str], b: list[str]) -> float:
    """How alike the first n tokens of both are, n the shorter length (0 to 1)."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0
    return SequenceMatcher(None, a[:n], b[:n], autojunk=False).ratio()


_PARALLEL_CALLS = ("MPI_", "omp_", "atomic", "__syncthreads", "cuda")
_PARALLEL_WORDS = frozenset({"__global__", "<<<"})


def _parallel(token: str) -> bool:
    """A token that commits a program to a way of parallelising: a directive, a kernel, a
    parallel runtime call."""
    return token.startswith(("#pragma", *_PARALLEL_CALLS)) or token in _PARALLEL_WORDS


def converged(a: list[str], b: list[str], min_tokens: int, threshold: float) -> bool:
    """Have two threads written the same program so far? Over the first n tokens of both (n
    the shorter, at least `min_tokens`): the same parallel constructs, at least one of them
    (before that, two threads have only agreed on boilerplate), and code at least `threshold`
    alike. A program differing only in its directive is a different strategy, however alike
    the rest."""
    n = min(len(a), len(b))
    if n < min_tokens:
        return False
    mine = [t for t in a[:n] if _parallel(t)]
    if not mine or mine != [t for t in b[:n] if _parallel(t)]:
        return False
    return similarity(a, b) >= threshold


def looping(tokens: list[str], window: int = 64, n: int = 4, diversity: float = 0.25) -> bool:
    """Is the code's tail one short pattern over and over (`#include <x>` forty times, the same
    `#define` again and again)? Among its last `window` abstract tokens, fewer than `diversity`
    of the n-grams are distinct: a thread that has converged on itself, the way small models
    degenerate. Real code, even unrolled, keeps more variety once names are told apart."""
    if len(tokens) < window:
        return False
    tail = tokens[-window:]
    grams = {tuple(tail[i : i + n]) for i in range(window - n + 1)}
    return len(grams) < diversity * (window - n + 1)


def structure(code: str, language: Language) -> str:
    """How a program parallelises: its parallel constructs and loops in order, names
    abstracted (half of the behaviour key: the same outputs computed the same way)."""
    keep = [
        _ANY_NAME.sub("v", token)  # which variable is a question for the outputs
        for token in shape(code, language)
        if _parallel(token) or token in {"for", "while", "do"}
    ]
    return "\n".join(keep)
