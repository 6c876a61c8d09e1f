"""Normal forms of candidate programs, so that duplicates are verified once.

Two sources normalise equal when they differ only in comments, layout or the order and spacing
of the clauses of their `#pragma omp` directives.
"""

from __future__ import annotations

from tree_sitter import Node

from agents.analysis.parse import past_parentheses, syntax_tree, text
from sandbox.spec import Language

# Directive words (OpenMP 5.2) that start a pragma; everything after them is a clause.
_DIRECTIVE_WORDS = frozenset(
    [
        "parallel",
        "for",
        "do",
        "simd",
        "target",
        "teams",
        "distribute",
        "sections",
        "section",
        "single",
        "master",
        "masked",
        "critical",
        "atomic",
        "barrier",
        "task",
        "taskloop",
        "taskwait",
        "taskgroup",
        "taskyield",
        "ordered",
        "flush",
        "declare",
        "loop",
        "data",
        "enter",
        "exit",
        "update",
        "threadprivate",
        "scope",
        "scan",
    ]
)
# Literals whose text is their value: kept exactly, spaces and escapes included.
_VERBATIM = frozenset({"string_literal", "char_literal", "raw_string_literal", "system_lib_string"})


def normalise(source: str, language: Language) -> str:
    """The source's tokens one space apart, preprocessor lines on their own lines, comments gone
    and OpenMP directives in canonical form. Any text normalises (a broken candidate too: dedup
    must never fail on what a model wrote)."""
    root = syntax_tree(source, language).root_node
    out: list[str] = []
    _emit(root, out)
    lines = (line.strip() for line in " ".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def _emit(node: Node, out: list[str]) -> None:
    if node.type == "comment":
        return
    if node.type == "preproc_call" and _is_omp(node):
        out += ["\n", canonical_pragma(text(node.child_by_field_name("argument") or node)), "\n"]
        return
    if node.type in _VERBATIM:
        out.append(text(node))
        return
    if node.child_count == 0:
        token = text(node)
        if node.type == "preproc_arg":
            # A macro body is raw text to the parser: normalise its spacing only.
            out.append(" ".join(token.split()))
        elif node.type.startswith("#") or node.type == "preproc_directive":
            out += ["\n", token]
        elif not token.strip():
            out.append("\n")
        else:
            out.append(token)
        return
    for child in node.children:
        _emit(child, out)
    if node.type.startswith("preproc_") and node.type != "preproc_arg":
        out.append("\n")


def _is_omp(node: Node) -> bool:
    directive, argument = (
        node.child_by_field_name("directive"),
        node.child_by_field_name("argument"),
    )
    return (
        directive is not None
        and text(directive) == "#pragma"
        and argument is not None
        and text(argument).split()[:1] == ["omp"]
    )


def canonical_pragma(argument: str) -> str:
    """`omp parallel for  reduction(+: s) private(t)` → `#pragma omp parallel for private(t)
    reduction(+:s)`: directive words in order, then clauses sorted, spaces inside them gone."""
    words, clauses = _split_clauses(argument.removeprefix("omp").strip())
    return " ".join(["#pragma omp", *words, *sorted(clauses)])


def _split_clauses(rest: str) -> tuple[list[str], list[str]]:
    words: list[str] = []
    clauses: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i].isspace() or rest[i] == ",":
            i += 1
            continue
        start = i
        while i < len(rest) and (rest[i].isalnum() or rest[i] == "_"):
            i += 1
        name = rest[start:i]
        j = i
        while j < len(rest) and rest[j].isspace():
            j += 1
        if j < len(rest) and rest[j] == "(":
            k = past_parentheses(rest, j) or len(rest)
            clauses.append(name + "".join(rest[j:k].split()))
            i = k
        elif name in _DIRECTIVE_WORDS and not clauses:
            words.append(name)
        elif name:
            clauses.append(name)
        else:
            # Something that is not a word (a stray symbol): keep it as its own clause.
            clauses.append(rest[i])
            i += 1
    return words, clauses
