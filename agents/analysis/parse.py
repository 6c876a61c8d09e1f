"""The tree-sitter front end: parsing, and small helpers over syntax nodes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Language as Grammar
from tree_sitter import Node, Parser, Tree

from agents.analysis.errors import InputError
from sandbox.spec import Language

# Above this share of the source inside ERROR nodes the text is not taken for C/C++ at all.
MAX_ERROR_SHARE = 0.5

LOOP_TYPES = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})


@cache
def _grammar(cpp: bool) -> Grammar:
    return Grammar(tree_sitter_cpp.language() if cpp else tree_sitter_c.language())


def syntax_tree(source: str, language: Language) -> Tree:
    """Parse C with the C grammar, C++ and CUDA with the C++ one, whatever the text is (a
    candidate a model wrote may be anything: tree-sitter still gives a tree, with ERROR nodes)."""
    return Parser(_grammar(language is not Language.C)).parse(source.encode())


def parse(source: str, language: Language) -> Tree:
    """`syntax_tree`, rejecting what is not code: empty, mostly unparseable, no function."""
    if not source.strip():
        raise InputError("the source is empty")
    tree = syntax_tree(source, language)
    root = tree.root_node
    code = sum(1 for b in source.encode() if not chr(b).isspace())
    broken = sum(_span_chars(n) for n in _top_errors(root))
    if broken > MAX_ERROR_SHARE * code:
        raise InputError(
            f"this does not look like {'C' if language is Language.C else 'C++'}: "
            f"the parser could not make sense of {100 * broken // max(code, 1)}% of it"
        )
    if not any(True for _ in function_definitions(root)):
        raise InputError("the source defines no function")
    return tree


def _span_chars(node: Node) -> int:
    return sum(1 for b in (node.text or b"") if not chr(b).isspace())


def _top_errors(node: Node) -> Iterator[Node]:
    if node.type == "ERROR":
        yield node
        return
    for child in node.children:
        if child.has_error:
            yield from _top_errors(child)


def syntax_error_lines(root: Node) -> tuple[int, ...]:
    """The 1-based lines of ERROR and MISSING nodes."""
    lines: set[int] = set()

    def visit(node: Node) -> None:
        if node.type == "ERROR" or node.is_missing:
            lines.add(line(node))
        for child in node.children:
            if child.has_error or child.is_missing:
                visit(child)

    if root.has_error:
        visit(root)
    return tuple(sorted(lines))


def text(node: Node) -> str:
    return (node.text or b"").decode(errors="replace")


def line(node: Node) -> int:
    return node.start_point.row + 1


def end_line(node: Node) -> int:
    return node.end_point.row + 1


def past_parentheses(source: str, start: int) -> int | None:
    """The index just past the `)` that closes the `(` at `start`; None when it is never closed."""
    depth = 0
    for k in range(start, len(source)):
        depth += {"(": 1, ")": -1}.get(source[k], 0)
        if depth == 0:
            return k + 1
    return None


def root_of(node: Node) -> Node:
    """The root of the tree `node` is in (the translation unit)."""
    while node.parent is not None:
        node = node.parent
    return node


JUMPS = frozenset(
    {"return_statement", "break_statement", "continue_statement", "goto_statement",
     "throw_statement"}
)  # fmt: skip
"""Statements that leave where they are."""


def cut(code: bytes, marked: Sequence[tuple[int, str]]) -> bytes:
    """`code` without the marked pieces (byte offset from its start, their text), and without
    the lines they leave blank."""
    for at, shown in sorted(marked, reverse=True):
        code = code[:at] + code[at + len(shown.encode()) :]
        start, end = code.rfind(b"\n", 0, at), code.find(b"\n", at)
        if start >= 0 and end >= 0 and not code[start:end].strip():
            code = code[:start] + code[end:]
    return code


def walk(root: Node) -> Iterator[Node]:
    """Every node under `root` (itself first), in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def tokens(node: Node) -> Iterator[Node]:
    """The leaves under `node`, comments left out."""
    if node.type == "comment":
        return
    if node.child_count == 0:
        yield node
        return
    for child in node.children:
        yield from tokens(child)


def canon(node: Node) -> str:
    """The node's tokens joined by single spaces: equal for code that differs only in layout."""
    return " ".join(text(t) for t in tokens(node))


def unwrap(node: Node) -> Node:
    """Strip parentheses around an expression."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        if inner.type == "comment":
            break
        node = inner
    return node


def identifiers(node: Node) -> Iterator[str]:
    """Names of the variables an expression mentions."""
    if node.type == "identifier":
        yield text(node)
    for child in node.children:
        yield from identifiers(child)


def mentions(node: Node, names: set[str] | frozenset[str] | str) -> bool:
    wanted = {names} if isinstance(names, str) else names
    return any(name in wanted for name in identifiers(node))


def body_statements(body: Node | None) -> list[Node]:
    """The statements of a loop's body: its block's, or the one statement written without
    braces (`for (...) a[i] = a[i - 1] + x[i];`); none for no body or an empty `;`."""
    if body is None:
        return []
    if body.type == "compound_statement":
        return [c for c in body.named_children if c.type != "comment"]
    return [] if body.type == "expression_statement" and not body.named_children else [body]


def function_definitions(root: Node) -> Iterator[Node]:
    """Every function definition, in source order (inside namespaces, classes and templates)."""
    for child in root.children:
        if child.type == "function_definition":
            yield child
        elif child.type != "compound_statement":
            yield from function_definitions(child)


def declared_name(declarator: Node | None) -> str | None:
    """The name a declarator declares (`*p`, `a[10]`, `&x`, `x = 1` all declare their identifier)."""
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            return text(declarator)
        if declarator.type in ("qualified_identifier", "destructor_name", "operator_name"):
            return text(declarator)
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (
                    c
                    for c in declarator.named_children
                    if c.type.endswith(("declarator", "identifier"))
                ),
                None,
            )
        declarator = inner
    return None


def is_scalar_declarator(declarator: Node | None) -> bool:
    """Whether a parameter is passed by value as a plain name (not a pointer, array or reference)."""
    return declarator is not None and declarator.type == "identifier"


def in_body(node: Node) -> bool:
    """Whether `node` lies in a block (a function's body, or one inside it)."""
    holder = node.parent
    while holder is not None and holder.type != "compound_statement":
        holder = holder.parent
    return holder is not None


def constructed(declarator: Node) -> bool:
    """`h(nb)` in `std::vector<long> h(nb);`, which the parser reads as a function declaration
    with a parameter of type `nb`: a variable when every "parameter" is a bare name; and
    `img(W * H)` in a function's body (a product the parser reads as a parameter `H` pointing
    to a `W`: a function declared inside another is rare, a size so written is not)."""
    parameters = declarator.child_by_field_name("parameters")
    body = in_body(declarator)
    return (
        parameters is not None
        and all(
            p.type == "parameter_declaration"
            and (t := p.child_by_field_name("type")) is not None
            and t.type == "type_identifier"
            and _bare_or_product(p.child_by_field_name("declarator"), body)
            for p in parameters.named_children
        )
        and parameters.named_child_count > 0
    )


def _bare_or_product(declarator: Node | None, in_body: bool) -> bool:
    """No declarator (`h(nb)`), or in a function's body `* name` (`img(W * H)`)."""
    if declarator is None:
        return True
    inner = declarator.child_by_field_name("declarator")
    return (
        in_body
        and declarator.type == "pointer_declarator"
        and inner is not None
        and inner.type == "identifier"
        and not any(c.type == "type_qualifier" for c in declarator.children)
    )


def is_method(definition: Node) -> bool:
    """Whether a function definition is a class's member: inside a class's body, or named
    through its class (`T::f`). Code may call one without naming it (a constructor, a
    destructor, an operator)."""
    parent = definition.parent
    while parent is not None:
        if parent.type in ("field_declaration_list", "class_specifier", "struct_specifier"):
            return True
        parent = parent.parent
    declarator = definition.child_by_field_name("declarator")
    return declarator is not None and "::" in text(declarator).split("(")[0]


def function_name(definition: Node) -> str:
    return declared_name(definition.child_by_field_name("declarator")) or "<anonymous>"


def function_params(definition: Node) -> list[tuple[str, Node]]:
    """(name, parameter_declaration) for each named parameter."""
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return []
    params = declarator.child_by_field_name("parameters")
    out = []
    for param in params.named_children if params is not None else []:
        name = declared_name(param.child_by_field_name("declarator"))
        if name is not None:
            out.append((name, param))
    return out


def integer(node: Node, constants: dict[str, int]) -> int | None:
    """The value of an integer literal, a named constant, or a negated one; None otherwise."""
    node = unwrap(node)
    if node.type == "number_literal":
        return parse_int(text(node))
    if node.type == "identifier":
        return constants.get(text(node))
    if node.type == "unary_expression" and text(node.children[0]) == "-":
        inner = integer(node.children[1], constants)
        return None if inner is None else -inner
    return None


def parse_int(literal: str) -> int | None:
    digits = literal.strip().strip("()").rstrip("uUlLzZ").replace("'", "")
    try:
        return int(digits, 0)
    except ValueError:
        return int(digits) if digits.isdigit() else None


def constants(root: Node) -> dict[str, int]:
    """Integer constants a loop bound may name: `#define N 100`, `const int N = 100;`."""
    found: dict[str, int] = {}

    def visit(node: Node) -> None:
        if node.type == "preproc_def":
            macro, body = node.child_by_field_name("name"), node.child_by_field_name("value")
            if macro is not None and body is not None:
                # A macro body is raw text to the parser; only a lone literal counts here.
                number = parse_int(text(body).split("//")[0].split("/*")[0])
                if number is not None:
                    found[text(macro)] = number
        elif node.type == "declaration" and _is_const(node):
            for decl in node.children_by_field_name("declarator"):
                value = decl.child_by_field_name("value")
                name = declared_name(decl.child_by_field_name("declarator"))
                number = integer(value, found) if value is not None else None
                if name is not None and number is not None:
                    found[name] = number
        for child in node.children:
            visit(child)

    visit(root)
    return found


def _is_const(declaration: Node) -> bool:
    return any(
        c.type == "type_qualifier" and text(c) in ("const", "constexpr")
        for c in declaration.children
    )
