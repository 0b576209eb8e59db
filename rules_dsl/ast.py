"""The syntax tree of the expression language: one frozen dataclass per construct, each with its span.

Nodes are built by ``rules_dsl.parser`` and read by the checker, the compiler and ``rules_dsl.prob``.
Spans count from 1 and are in the *normalised* text, which has the same length and columns as the
text as written (normalisation maps one character to one character).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node is written: ``line`` and ``column`` of its first character (1-based), and the
    column just past its last character on ``end_line`` (``end_line`` is ``line`` for one-line text)."""

    line: int
    column: int
    end_column: int
    end_line: int | None = None

    @property
    def last_line(self) -> int:
        return self.line if self.end_line is None else self.end_line


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """Base of every node; ``span`` is where the node is written."""

    span: Span

    def children(self) -> tuple["Node", ...]:
        """The direct sub-expressions, left to right."""
        out: list[Node] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Node) and f.name != "span":
                out.append(value)
            elif isinstance(value, tuple):
                out.extend(v for v in value if isinstance(v, Node))
        return tuple(out)


def operator_span(node: Node, i: int = 0) -> Span:
    """Where the operator of ``node`` is written (its ``i``-th of a chained comparison), or the
    node's own span when it has no separate operator."""
    if isinstance(node, Compare) and i < len(node.op_spans):
        return node.op_spans[i]
    return getattr(node, "op_span", None) or node.span


# --- literals ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Number(Node):
    """An integer literal: ``42``. (Fractions arise only from ``/``; there are no decimal literals.)"""

    value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class String(Node):
    """A string literal, ``'鋼'`` or ``"鋼"``; ``value`` is the text without quotes, escapes resolved."""

    value: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Boolean(Node):
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Null(Node):
    """``null``: the absent value."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ListLiteral(Node):
    """A list ``[1, 2, x]``; ``items`` are the element expressions."""

    items: tuple[Node, ...]


# --- names and paths --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Name(Node):
    """A root variable: ``item`` in ``item.quality``, or ``能力``. Looked up in the environment."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribute(Node):
    """A field of a path: ``target.name``. On a mapping it is its key ``name``; on a list it is the
    list of that field of every element (projection); on null it is null."""

    target: Node
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Index(Node):
    """Indexing ``target[index]``: a list by integer position (negative from the end), a mapping by
    key. ``op_span`` is where its ``[`` is written (errors of the indexing point there)."""

    target: Node
    index: Node
    op_span: Span | None = None


# --- dice -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Dice(Node):
    """``NdM``: the sum of ``count`` dice of ``faces`` faces (``dM`` has count 1). Bounds are
    checked by the parser: 1 <= count <= MAX_DICE_PER_TERM, 1 <= faces <= MAX_FACES."""

    count: int
    faces: int


@dataclass(frozen=True, slots=True, kw_only=True)
class D66(Node):
    """``d66``: two six-sided dice read as tens and units, 11..66 (36 values, each 1/36)."""


# --- operators --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Unary(Node):
    """``-x``, ``+x`` or ``not x``; ``op`` is ``"-"``, ``"+"`` or ``"not"``."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Binary(Node):
    """Arithmetic ``left op right``; ``op`` is one of ``+ - * / // % **``. ``op_span`` is where the
    operator is written (errors of the operation point there)."""

    op: str
    left: Node
    right: Node
    op_span: Span | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Compare(Node):
    """A comparison, possibly chained like Python: ``1 <= x < 6`` is ``1 <= x and x < 6`` (each
    operand evaluated once). ``ops[i]`` joins ``operands[i]`` and ``operands[i + 1]``; ops are
    ``== != < <= > >= in`` and ``not in``; ``op_spans[i]`` is where ``ops[i]`` is written."""

    ops: tuple[str, ...]
    operands: tuple[Node, ...]
    op_spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Logical(Node):
    """``left and right`` / ``left or right`` (``op``), short-circuit, giving a boolean."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Conditional(Node):
    """``then if condition else otherwise`` (Python order): only the chosen branch is evaluated."""

    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Call(Node):
    """A function call ``name(args...)``; ``name_span`` is where the function name is written."""

    name: str
    args: tuple[Node, ...]
    name_span: Span


# --- local names ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Local(Node):
    """A name bound inside the expression (by ``let`` or a ``for`` clause), not read from the
    environment; the parser resolves every such use, so ``Name`` nodes are the free names only."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Let(Node):
    """``let name = value in body``: ``value`` evaluated once, ``body`` sees it as ``name``
    (``let a = 1, b = a + 1 in ...`` is two nested Lets). ``name_span`` is where the name is written."""

    name: str
    value: Node
    body: Node
    name_span: Span


@dataclass(frozen=True, slots=True, kw_only=True)
class ForClause(Node):
    """``for name in iterable`` inside a comprehension; ``iterable`` must give a list."""

    name: str
    iterable: Node
    name_span: Span


@dataclass(frozen=True, slots=True, kw_only=True)
class IfClause(Node):
    """``if condition`` inside a comprehension: the elements for which it is false are skipped."""

    condition: Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Comprehension(Node):
    """``[element for x in xs if c ...]`` (``generator`` False) or the sole argument of a call,
    ``all(element for x in xs)`` (``generator`` True). ``clauses`` start with a ``ForClause``; each
    clause sees the names of the ``for`` clauses before it, and ``element`` sees them all."""

    element: Node
    clauses: tuple[Node, ...]
    generator: bool = False


def binders(node: Node) -> bool:
    """True when ``node`` binds local names somewhere (a ``let`` or a comprehension)."""
    return any(isinstance(n, (Let, Comprehension)) for n in walk(node))


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (iterative: no recursion)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children()))


def dump(node: Node) -> str:
    """A compact prefix form for tests and debugging: ``(+ 1 (* 2 x))``, ``(2d6)``, ``(. item price)``."""
    if isinstance(node, Number):
        return str(node.value)
    if isinstance(node, String):
        return repr(node.value)
    if isinstance(node, Boolean):
        return "true" if node.value else "false"
    if isinstance(node, Null):
        return "null"
    if isinstance(node, Name):
        return node.name
    if isinstance(node, ListLiteral):
        return "[" + " ".join(dump(i) for i in node.items) + "]"
    if isinstance(node, Attribute):
        return f"(. {dump(node.target)} {node.name})"
    if isinstance(node, Index):
        return f"([] {dump(node.target)} {dump(node.index)})"
    if isinstance(node, Dice):
        return f"({node.count}d{node.faces})"
    if isinstance(node, D66):
        return "(d66)"
    if isinstance(node, Unary):
        return f"({node.op} {dump(node.operand)})"
    if isinstance(node, (Binary, Logical)):
        return f"({node.op} {dump(node.left)} {dump(node.right)})"
    if isinstance(node, Compare):
        parts = [dump(node.operands[0])]
        for op, operand in zip(node.ops, node.operands[1:]):
            parts += [op, dump(operand)]
        return "(cmp " + " ".join(parts) + ")"
    if isinstance(node, Conditional):
        return f"(if {dump(node.condition)} {dump(node.then)} {dump(node.otherwise)})"
    if isinstance(node, Call):
        return f"({node.name} " + " ".join(dump(a) for a in node.args) + ")" if node.args \
            else f"({node.name})"
    if isinstance(node, Local):
        return f"${node.name}"
    if isinstance(node, Let):
        return f"(let {node.name} {dump(node.value)} {dump(node.body)})"
    if isinstance(node, ForClause):
        return f"(for {node.name} {dump(node.iterable)})"
    if isinstance(node, IfClause):
        return f"(if {dump(node.condition)})"
    if isinstance(node, Comprehension):
        kind = "gen" if node.generator else "list"
        return f"({kind} {dump(node.element)} " + " ".join(dump(c) for c in node.clauses) + ")"
    raise TypeError(f"not a node: {node!r}")
