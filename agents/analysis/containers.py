"""Which names in a function are random-access containers, as far as their declarations show.

OpenMP splits a range-based for loop only over a random-access range, and the analysis knows a
container's type only from a declaration it can see: a parameter or a local of the function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node

from agents.analysis.parse import canon, constructed, declared_name, function_params

RANDOM_ACCESS = ("std::vector", "std::array", "std::span", "std::deque", "std::string")
"""Type names whose iterators are random-access (a prefix of the declared type's text)."""


def random_access_names(definition: Node) -> frozenset[str]:
    """Names every declaration of which in `definition` is a random-access container.

    A name declared twice (shadowed in an inner block) counts only when both declarations are
    random-access, since the analysis does not track which one a loop sees.
    """
    verdicts: dict[str, bool] = {}
    for _, param in function_params(definition):
        _record(verdicts, param, is_parameter=True)
    body = definition.child_by_field_name("body")
    for declaration in _declarations(body) if body is not None else ():
        _record(verdicts, declaration, is_parameter=False)
    return frozenset(name for name, ok in verdicts.items() if ok)


CONTIGUOUS = ("std::vector<", "std::array<", "std::string", "std::basic_string<")
"""Containers whose elements lie in one block, `data()` to `data() + size()`."""


def contiguous_names(definition: Node, arithmetic: Callable[[str], bool]) -> frozenset[str]:
    """Names every declaration of which in `definition` (a parameter, by value or by reference,
    or a local) is a container of `CONTIGUOUS` whose elements are numbers (`arithmetic` says
    which type names are): its elements are all the storage it holds, where a vector of
    vectors (or of classes) holds its rows' elements elsewhere. No `std::vector<bool>`,
    whose bits share words and which has no `data()`."""

    def numbers(type_text: str) -> bool:
        if type_text.startswith(("std::string", "std::basic_string<")):
            return True
        element = type_text.partition("<")[2]
        depth = 0
        for end, char in enumerate(element):
            depth += {"<": 1, ">": -1}.get(char, 0)
            if depth < 0 or (depth == 0 and char == ","):
                element = element[:end]
                break
        return element != "bool" and "<" not in element and arithmetic(element)

    verdicts: dict[str, bool] = {}
    for _, param in function_params(definition):
        _record(verdicts, param, is_parameter=True, types=CONTIGUOUS, element=numbers)
    body = definition.child_by_field_name("body")
    for declaration in _declarations(body) if body is not None else ():
        _record(verdicts, declaration, is_parameter=False, types=CONTIGUOUS, element=numbers)
    return frozenset(name for name, ok in verdicts.items() if ok)


def _record(
    verdicts: dict[str, bool],
    declaration: Node,
    is_parameter: bool,
    types: tuple[str, ...] = RANDOM_ACCESS,
    element: Callable[[str], bool] | None = None,
) -> None:
    kind = declaration.child_by_field_name("type")
    type_text = canon(kind).replace(" ", "") if kind is not None else ""
    for declarator in declaration.children_by_field_name("declarator"):
        name = declared_name(declarator)
        if name is None:
            continue
        shape = _shape(declarator)
        if shape == "array":
            # An array parameter is a pointer: a range-based for over it does not compile.
            ok = not is_parameter and element is None
        else:
            ok = (
                shape in ("plain", "reference")
                and type_text.startswith(types)
                and (element is None or element(type_text))
            )
        verdicts[name] = verdicts.get(name, True) and ok


def _shape(declarator: Node) -> str:
    """`plain`, `reference`, `array` or `other` (a pointer, a function...)."""
    if declarator.type == "init_declarator":
        inner = declarator.child_by_field_name("declarator")
        return _shape(inner) if inner is not None else "other"
    if declarator.type == "identifier":
        return "plain"
    if declarator.type == "reference_declarator":
        named = declarator.named_children
        return "reference" if len(named) == 1 and named[0].type == "identifier" else "other"
    if declarator.type == "array_declarator":
        return "array"
    if declarator.type == "function_declarator" and constructed(declarator):
        return "plain"  # `std::vector<double> v(n);`, which parses as a prototype taking an `n`
    return "other"


def _declarations(node: Node) -> Iterator[Node]:
    for child in node.children:
        if child.type == "declaration":
            yield child
        if child.type != "lambda_expression":
            yield from _declarations(child)
