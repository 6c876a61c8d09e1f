"""What a loop body does: the variables it reads and writes, in evaluation order, its calls and
its early exits. The dependence rules work on these facts, never on the syntax tree directly."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from tree_sitter import Node

from agents.analysis.model import BestUpdate
from agents.analysis.parse import canon, declared_name, identifiers, line, text, unwrap, walk
from agents.analysis.reductions import match_best_update, match_reduction
from agents.analysis.values import resolved, spelled

# Nodes whose subtrees are never evaluated or hold no variable uses.
_SKIPPED = frozenset(
    {"sizeof_expression", "alignof_expression", "comment", "preproc_call", "type_descriptor"}
)


@dataclass(frozen=True)
class AccessEvent:
    """One read or write of a variable (a scalar, or an array element when `indices` is set)."""

    name: str
    kind: Literal["read", "write"]
    indices: tuple[str, ...]
    index_nodes: tuple[Node, ...]
    line: int
    definite: bool
    """Whether every iteration executes it (not under an `if`, an inner loop or `&&`/`||`)."""
    reduction: str | None
    """The operator when the event is part of a reduction statement on `name` (`s += e`)."""
    partial: bool = False
    """A use of one member (`p.x = ...`): a write leaves the rest of the variable as it was."""
    on_exit: bool = False
    """Only on the way out of the loop: in a `return`, or in a block that runs straight into
    one or into a `break` of this loop (`{ found = i; break; }`, see `exit_block`)."""
    guard: int | None = None
    """Inside the `if` of `BodyFacts.best_updates[guard]` (condition or block)."""
    at: int = 0
    """Where the access starts: its byte offset in the parsed source."""


@dataclass
class BodyFacts:
    """Everything the dependence rules need from a loop body."""

    events: list[AccessEvent] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    exits: list[str] = field(default_factory=list)
    """`break at line 7`, `return at line 9`: ways out of the loop other than its test."""
    tangled_exits: list[str] = field(default_factory=list)
    """Of `exits`, those a first-match search cannot stand in for with `continue`: a `goto`, a
    `return` inside an inner loop (where `continue` would go on with that loop)."""
    pointer_writes: list[str] = field(default_factory=list)
    """Writes the analysis cannot name: `*p = ...`, `p->x = ...`."""
    range_writes: list[tuple[str, str, int]] = field(default_factory=list)
    """(container, element, line): an inner range-based loop writes a named container's
    elements through its reference element, so every outer iteration writes all of them."""
    unreadable: list[int] = field(default_factory=list)
    """Lines where the parser recovered from an error: what they do is not known."""
    locals: set[str] = field(default_factory=set)
    """Names declared inside the body (inner loop variables included)."""
    inner_vars: set[str] = field(default_factory=set)
    """Induction variables of the loops inside the body."""
    best_updates: list[BestUpdate] = field(default_factory=list)
    """`if (d < best) { best = d; at = i; }` statements (argmin), in source order."""
    pointer_reads: list[tuple[frozenset[str], str]] = field(default_factory=list)
    """(names the pointer mentions, `*(b + i) at line 4`) of every dereference `*p` read:
    memory reached through an address, which no subscript names."""
    local_pointers: dict[str, frozenset[str]] = field(default_factory=dict)
    """Pointers and references declared in the body (`double *row = a + i * n`, `int &r =
    b[k]`) → the names their initial value mentions (empty when there is none): the storage
    they may reach. They are also in `locals` (the variable is the body's own; what it points
    at is not)."""
    local_references: set[str] = field(default_factory=set)
    """Of `local_pointers`, the references: assigning one writes its target."""

    def through_locals(self, names: set[str] | frozenset[str]) -> set[str]:
        """`names` with each local pointer or reference replaced by the names it may reach (to
        a fixed point); "?" stands for storage no name gives (a pointer with no initial value)."""
        found: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name in found:
                continue
            found.add(name)
            if name in self.local_pointers:
                stack.extend(self.local_pointers[name] or {"?"})
        return {n for n in found if n not in self.local_pointers}

    def written(self) -> set[str]:
        return {e.name for e in self.events if e.kind == "write"}

    def assigned(self) -> set[str]:
        """Names assigned as a whole (not element by element)."""
        return {e.name for e in self.events if e.kind == "write" and not e.indices}


def body_facts(body: Node) -> BodyFacts:
    """Walk a loop (or function) body in evaluation order."""
    facts = BodyFacts()
    _Walker(facts).visit(body, _Ctx())
    return facts


@dataclass(frozen=True)
class _Ctx:
    definite: bool = True
    """Every iteration gets here (not under an `if`, an inner loop, `&&` or `||`)."""
    breakable: int = 0
    """Inner loops and switches around the node: a `break` there leaves only them."""
    looping: int = 0
    """Inner loops around the node (switches aside)."""
    in_lambda: bool = False
    """Inside a lambda's body: a `return` there leaves the lambda, not the loop."""
    on_exit: bool = False
    """On the way out of the loop (see `AccessEvent.on_exit`)."""
    guard: int | None = None
    """Inside the `if` of a best update (see `AccessEvent.guard`)."""
    reduction: tuple[str, str] | None = None
    """(variable, operator) of the reduction statement the node is part of."""

    def maybe(self) -> _Ctx:
        return replace(self, definite=False)


class _Walker:
    def __init__(self, facts: BodyFacts) -> None:
        self.facts = facts
        self.aliases: dict[str, Node] = {}
        """Reference elements of inner range-based for loops → the range they write into."""
        self.arrays: frozenset[str] | None = None
        """The file's array members (`array_members`), read at the first subscript of a member."""

    def _array_members(self, node: Node) -> frozenset[str]:
        if self.arrays is None:
            root = node
            while root.parent is not None:
                root = root.parent
            self.arrays = array_members(root)
        return self.arrays

    def visit(self, node: Node, ctx: _Ctx) -> None:
        kind = node.type
        if kind in _SKIPPED:
            return
        if kind == "ERROR" or node.is_missing:
            self.facts.unreadable.append(line(node))
        if kind in ("expression_statement", "if_statement") and ctx.reduction is None:
            found = match_reduction(node)
            if found is not None:
                ctx = replace(ctx, reduction=found)
        handler = getattr(self, f"_{kind}", None)
        if handler is not None:
            handler(node, ctx)
        elif kind == "identifier":
            self._event(node, "read", ctx)
        else:
            for child in node.children:
                self.visit(child, ctx)

    # --- accesses ---------------------------------------------------------------------------

    def _event(
        self,
        node: Node,
        kind: Literal["read", "write"],
        ctx: _Ctx,
        indices: tuple[Node, ...] = (),
        partial: bool = False,
    ) -> None:
        """An access; an index naming a local that holds its initializer there (`out[idx]`,
        `out[row + j]`) is recorded as that value (`values.spelled`, `values.resolved`)."""
        name = _spelled(node)
        reduction = ctx.reduction
        self.facts.events.append(
            AccessEvent(
                name=name,
                kind=kind,
                indices=tuple(spelled(i) for i in indices),
                index_nodes=tuple(resolved(i) for i in indices),
                line=line(node),
                definite=ctx.definite,
                reduction=reduction[1] if reduction and reduction[0] == name else None,
                partial=partial,
                on_exit=ctx.on_exit,
                guard=ctx.guard,
                at=node.start_byte,
            )
        )

    def _subscript_expression(self, node: Node, ctx: _Ctx) -> None:
        self._access(node, "read", ctx)

    def _access(
        self, node: Node, kind: Literal["read", "write"], ctx: _Ctx, partial: bool = False
    ) -> None:
        """A read or write of an lvalue: a name, an array element, a field, a dereference."""
        node = unwrap(node)
        if node.type == "identifier":
            self._event(node, kind, ctx, partial=partial)
            target = self.aliases.get(text(node)) if kind == "write" else None
            # Writing a reference element of an inner range-based for writes its range.
            if target is not None and unwrap(target).type == "identifier":
                self.facts.range_writes.append((text(unwrap(target)), text(node), line(node)))
            elif target is not None:
                self._access(target, "write", ctx)
        elif node.type == "subscript_expression":
            base, indices = _subscript_parts(node)
            for index in indices:
                self.visit(index, ctx)
            arrays = self._array_members(node) if base.type == "field_expression" else frozenset()
            element, inside = _element_holding(base, arrays)
            if element is not None and inside:
                # `b[i].p[0]`, `b[i].q.r[k]`: an array inside an array's element is a use of the
                # element, as `b[i].m` is. (Named `b[i].p`, every iteration of `i` would seem to
                # write the one element `[0]` of one array.)
                self._access(element, kind, ctx, partial=True)
            elif element is None and base.type in (
                "identifier",
                "field_expression",
                "qualified_identifier",
            ):
                self._event(base, kind, ctx, indices)
            else:
                # `(a + 1)[i]`, `((int *)a)[i]`, `(i + 1)[a]`, `b[i].ptr[k]`, `b[i]->v[k]`: an
                # address the code computes (an element's pointer member may point anywhere,
                # another element's to the same place), which may reach any element of
                # whatever it mentions.
                self.visit(base, ctx)
                shown = f"{canon(node)} at line {line(node)}"
                if kind == "write":
                    self.facts.pointer_writes.append(shown)
                else:
                    reached = {*identifiers(base), *(n for i in indices for n in identifiers(i))}
                    self.facts.pointer_reads.append((frozenset(reached), shown))
        elif node.type == "field_expression" and _is_dot(node):
            # A member of a struct or of an array element counts as a use of the whole.
            self._access(node.children[0], kind, ctx, partial=True)
        else:
            self.visit(node, ctx)
            if kind == "write":
                self.facts.pointer_writes.append(f"{canon(node)} at line {line(node)}")

    def _assignment_expression(self, node: Node, ctx: _Ctx) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        assert left is not None and right is not None and operator is not None
        if text(operator) != "=":
            self._access(left, "read", ctx)
        self.visit(right, ctx)
        self._access(left, "write", ctx)

    def _update_expression(self, node: Node, ctx: _Ctx) -> None:
        target = node.child_by_field_name("argument")
        assert target is not None
        self._access(target, "read", ctx)
        self._access(target, "write", ctx)

    def _declaration(self, node: Node, ctx: _Ctx) -> None:
        # A `static` local lives as long as the program: every iteration (and every call)
        # shares it, so it is never one of the body's own names.
        storage = {text(c) for c in node.children if c.type == "storage_class_specifier"}
        shared = bool(storage & {"static", "extern"})
        for decl in node.children_by_field_name("declarator"):
            bound = [n for n in walk(decl) if n.type == "structured_binding_declarator"]
            if bound and not shared:
                # `auto& [x, y] = p[i + 1];`: each name is (a reference to) a part of the value.
                value = decl.child_by_field_name("value")
                reaches = frozenset(identifiers(value) if value is not None else ())
                by_reference = any(n.type == "reference_declarator" for n in walk(decl))
                for part in bound[0].named_children:
                    if part.type == "identifier":
                        self.facts.locals.add(text(part))
                        if by_reference:
                            self.facts.local_pointers[text(part)] = reaches
                            self.facts.local_references.add(text(part))
                if value is not None:
                    self.visit(value, ctx)
                continue
            name = declared_name(decl)
            if name is not None and not shared:
                self.facts.locals.add(name)
                declarator = (
                    decl.child_by_field_name("declarator")
                    if decl.type == "init_declarator"
                    else decl
                )
                if declarator is not None and declarator.type in (
                    "pointer_declarator",
                    "reference_declarator",
                ):
                    value = decl.child_by_field_name("value")
                    self.facts.local_pointers[name] = frozenset(
                        identifiers(value) if value is not None else ()
                    )
                    if declarator.type == "reference_declarator":
                        self.facts.local_references.add(name)
            # Initial values and array sizes are reads; the declared name is not.
            inner = (
                decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
            )
            while inner is not None:
                size = inner.child_by_field_name("size")
                if size is not None:
                    self.visit(size, ctx)
                inner = inner.child_by_field_name("declarator")
            value = decl.child_by_field_name("value")
            if value is not None:
                self.visit(value, ctx)

    def _call_expression(self, node: Node, ctx: _Ctx) -> None:
        callee = node.child_by_field_name("function")
        assert callee is not None
        if callee.type == "field_expression":
            member = callee.child_by_field_name("field")
            self.facts.calls.append(text(member) if member is not None else canon(callee))
            self.visit(callee.children[0], ctx)
            arguments = node.child_by_field_name("arguments")
            if (
                member is not None
                and text(member) in _SETTERS
                and arguments is not None
                and arguments.named_child_count > 0
                and _is_dot(callee)
            ):
                # `z.real(v)` sets one part of `z`: a write of a member.
                self._access(callee.children[0], "write", ctx, partial=True)
        elif callee.type == "template_function":
            name = callee.child_by_field_name("name")
            self.facts.calls.append(canon(name if name is not None else callee).replace(" ", ""))
        elif callee.type in ("identifier", "qualified_identifier", "primitive_type"):
            self.facts.calls.append(canon(callee).replace(" ", ""))
        else:
            self.facts.calls.append(canon(callee))
            self.visit(callee, ctx)
        arguments = node.child_by_field_name("arguments")
        if arguments is not None:
            self.visit(arguments, ctx)

    def _pointer_expression(self, node: Node, ctx: _Ctx) -> None:
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        if operator is not None and text(operator) == "*" and argument is not None:
            self.facts.pointer_reads.append(
                (frozenset(identifiers(argument)), f"{canon(node)} at line {line(node)}")
            )
        for child in node.children:
            self.visit(child, ctx)

    def _field_expression(self, node: Node, ctx: _Ctx) -> None:
        if not _is_dot(node) and node.children:
            self.facts.pointer_reads.append(
                (frozenset(identifiers(node.children[0])), f"{canon(node)} at line {line(node)}")
            )
        for child in node.children:
            self.visit(child, ctx)

    # --- control flow -----------------------------------------------------------------------

    def _branches(self, node: Node, first: str, ctx: _Ctx) -> None:
        """Visit the `first` field as it is, every other child as maybe executed."""
        head = node.child_by_field_name(first)
        for child in node.children:
            self.visit(child, ctx if child == head else ctx.maybe())

    def _if_statement(self, node: Node, ctx: _Ctx) -> None:
        found = match_best_update(node) if not ctx.in_lambda else None
        if found is not None:
            ctx = replace(ctx, guard=len(self.facts.best_updates))
            self.facts.best_updates.append(found[0])
        self._branches(node, "condition", ctx)

    def _conditional_expression(self, node: Node, ctx: _Ctx) -> None:
        self._branches(node, "condition", ctx)

    def _binary_expression(self, node: Node, ctx: _Ctx) -> None:
        operator = node.child_by_field_name("operator")
        if operator is not None and text(operator) in ("&&", "||"):
            self._branches(node, "left", ctx)
        else:
            for child in node.children:
                self.visit(child, ctx)

    def _loop(self, node: Node, ctx: _Ctx) -> None:
        self.facts.inner_vars.update(_induction_names(node))
        inner = replace(ctx, breakable=ctx.breakable + 1, looping=ctx.looping + 1)
        init = node.child_by_field_name("initializer") if node.type == "for_statement" else None
        # The initialiser runs once per outer iteration; the rest zero or more times.
        for child in node.children:
            self.visit(child, inner if child == init else inner.maybe())

    _for_statement = _while_statement = _do_statement = _loop

    def _for_range_loop(self, node: Node, ctx: _Ctx) -> None:
        inner = replace(ctx, breakable=ctx.breakable + 1, looping=ctx.looping + 1)
        declarator = node.child_by_field_name("declarator")
        name = declared_name(declarator)
        right = node.child_by_field_name("right")
        if right is not None:
            self.visit(right, inner)
        if name is None:
            self.facts.unreadable.append(line(node))
            return
        # The element is a fresh variable in every inner iteration; it is never an index.
        self.facts.locals.add(name)
        saved = dict(self.aliases)
        self.aliases.pop(name, None)
        by_reference = declarator is not None and declarator.type == "reference_declarator"
        if by_reference and right is not None and text(unwrap(right)) != name:
            self.aliases[name] = right
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, inner.maybe())
        self.aliases = saved

    def _switch_statement(self, node: Node, ctx: _Ctx) -> None:
        self._branches(node, "condition", replace(ctx, breakable=ctx.breakable + 1))

    def _break_statement(self, node: Node, ctx: _Ctx) -> None:
        if ctx.breakable == 0:
            self.facts.exits.append(f"break at line {line(node)}")

    def _return_statement(self, node: Node, ctx: _Ctx) -> None:
        if not ctx.in_lambda:
            self.facts.exits.append(f"return at line {line(node)}")
            if ctx.looping:
                self.facts.tangled_exits.append(f"return inside an inner loop at line {line(node)}")
            ctx = replace(ctx, on_exit=True)
        for child in node.children:
            self.visit(child, ctx)

    def _compound_statement(self, node: Node, ctx: _Ctx) -> None:
        if not ctx.in_lambda and exit_block(node, ctx.breakable == 0):
            ctx = replace(ctx, on_exit=True)
        for child in node.children:
            self.visit(child, ctx)
            # After a statement that may leave the iteration (`if (x) continue;`), what
            # follows runs only in some iterations.
            if ctx.definite and _may_leave(child):
                ctx = ctx.maybe()

    def _throw_statement(self, node: Node, ctx: _Ctx) -> None:
        # An exception may not leave a parallel region (the program would terminate).
        if not ctx.in_lambda:
            self.facts.exits.append(f"throw at line {line(node)}")
            self.facts.tangled_exits.append(f"throw at line {line(node)}")
        for child in node.children:
            self.visit(child, ctx)

    def _goto_statement(self, node: Node, ctx: _Ctx) -> None:
        self.facts.exits.append(f"goto at line {line(node)}")
        self.facts.tangled_exits.append(f"goto at line {line(node)}")

    def _lambda_expression(self, node: Node, ctx: _Ctx) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, _Ctx(definite=False, in_lambda=True))


def exit_block(node: Node, breakable: bool) -> bool:
    """A block of expression statements that ends in a `return` (or, when `breakable`, a
    `break`): whoever enters it leaves the loop, `{ found = i; break; }`."""
    if node.type != "compound_statement":
        return False
    statements = [c for c in node.named_children if c.type != "comment"]
    if not statements or statements[-1].type not in ("return_statement", "break_statement"):
        return False
    if statements[-1].type == "break_statement" and not breakable:
        return False
    return all(s.type == "expression_statement" for s in statements[:-1])


_SETTERS = frozenset({"real", "imag"})
"""Methods read-only without arguments that set a part of their object with one
(`std::complex::real(v)`)."""


def _spelled(node: Node) -> str:
    """The name an access uses, one spelling per variable: `S::a`, `ns::a` and `::a` are `a`
    (a member function or a `using` directive names them bare, so the qualifier is dropped:
    two different `a`s are then one, which is only more cautious)."""
    if node.type == "qualified_identifier":
        name = node.child_by_field_name("name")
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            return text(name)
    return canon(node).replace(" ", "")


def _may_leave(statement: Node) -> bool:
    """Whether `statement` may end the iteration it is in before what follows it runs: a
    `continue` or `break` of that loop (not of a loop or switch inside it), a `return`, a
    `goto`. Lambdas are left out (their `return` ends only the lambda)."""

    def visit(node: Node, nested_loop: bool, in_switch: bool) -> bool:
        kind = node.type
        if kind == "lambda_expression":
            return False
        if kind in ("return_statement", "goto_statement", "throw_statement"):
            return True
        if kind == "continue_statement":
            return not nested_loop
        if kind == "break_statement":
            return not nested_loop and not in_switch
        nested_loop = nested_loop or kind in (
            "for_statement",
            "while_statement",
            "do_statement",
            "for_range_loop",
        )
        in_switch = in_switch or kind == "switch_statement"
        return any(visit(child, nested_loop, in_switch) for child in node.children)

    return visit(statement, False, False)


def _is_dot(field_expr: Node) -> bool:
    operator = field_expr.child_by_field_name("operator")
    return operator is not None and text(operator) == "."


def _element_holding(base: Node, arrays: frozenset[str]) -> tuple[Node | None, bool]:
    """The array element `b[i]` whose member a subscript indexes (`b[i].p[k]`, `b[i].q.r[k]`,
    `b[i]->v[k]`), and whether what it indexes is storage inside the element: members reached
    by `.` only, the last one of the file's `arrays`. (None, False) where the base is no
    member of an element (`s.p`, `p->v`, `a`)."""
    field = base.child_by_field_name("field") if base.type == "field_expression" else None
    inside = field is not None and text(field) in arrays
    node = base
    while node.type == "field_expression" and node.children:
        inside = inside and _is_dot(node)
        node = unwrap(node.children[0])
    if node is base or node.type != "subscript_expression":
        return None, False
    return node, inside


def array_members(root: Node) -> frozenset[str]:
    """Names the file's structs, unions and classes declare as array members (`double p[3];`)
    and as nothing else: a name some type declares as a pointer, a typedef'd or library array
    or a scalar is not one (its type at a given use is not known here)."""
    arrays: set[str] = set()
    others: set[str] = set()
    for node in walk(root):
        if node.type != "field_declaration":
            continue
        for declarator in node.children_by_field_name("declarator"):
            shapes = []
            while declarator.type in (
                "array_declarator",
                "pointer_declarator",
                "reference_declarator",
            ):
                shapes.append(declarator.type)
                inner = declarator.child_by_field_name("declarator")
                if inner is None:
                    break
                declarator = inner
            if declarator.type != "field_identifier":  # `double (*p)[3]`, a function pointer
                others.update(text(n) for n in walk(declarator) if n.type == "field_identifier")
                continue
            named = arrays if shapes and set(shapes) == {"array_declarator"} else others
            named.add(text(declarator))
    return frozenset(arrays - others)


def _subscript_parts(node: Node) -> tuple[Node, tuple[Node, ...]]:
    """`a[i][j]` → (a, (i, j)); `v.data[k]` → (v.data, (k,))."""
    indices: list[Node] = []
    while node.type == "subscript_expression":
        index = node.child_by_field_name("index")
        if index is not None:
            indices.append(index)
        else:
            holder = node.child_by_field_name("indices")
            named = [c for c in holder.named_children if c.type != "comment"] if holder else []
            indices.extend(reversed(named))
        base = node.child_by_field_name("argument")
        assert base is not None
        node = unwrap(base)
    return node, tuple(reversed(indices))


def _induction_names(loop: Node) -> set[str]:
    """The names a loop's initialiser assigns or declares."""
    if loop.type != "for_statement":
        return set()
    init = loop.child_by_field_name("initializer")
    if init is None:
        return set()
    if init.type == "declaration":
        return {n for d in init.children_by_field_name("declarator") if (n := declared_name(d))}
    if init.type == "assignment_expression":
        left = init.child_by_field_name("left")
        return {text(left)} if left is not None and left.type == "identifier" else set()
    return set()
