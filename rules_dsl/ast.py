"""The syntax tree of the expression language: one immutable class per construct, each with its span.

Nodes are built by ``rules_dsl.parser`` and read by the checker, the compiler and ``rules_dsl.prob``.
Spans count from 1 and are in the *normalised* text, which has the same length and columns as the
text as written (normalisation maps one character to one character).

The classes are ``Frozen`` values whose fields are their ``__slots__`` (a field with a default is
listed in ``_defaults``): they behave like frozen dataclasses (keyword construction, equality,
hashing, ``replace``) without the cost of making dataclasses each time the module is imported,
which every command that reads an expression pays.
"""
from __future__ import annotations

from collections.abc import Iterator

from .frozen import Frozen
from .frozen import replace as _replace

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Span(Frozen):
    """Where a node is written: ``line`` and ``column`` of its first character (1-based), and the
    column just past its last character on ``end_line`` (``end_line`` is ``line`` for one-line text)."""

    __slots__ = ("line", "column", "end_column", "end_line")
    line: int
    column: int
    end_column: int
    end_line: int | None

    def __init__(self, line: int, column: int, end_column: int, end_line: int | None = None) -> None:
        setter = object.__setattr__
        setter(self, "line", line)
        setter(self, "column", column)
        setter(self, "end_column", end_column)
        setter(self, "end_line", end_line)

    @property
    def last_line(self) -> int:
        return self.line if self.end_line is None else self.end_line

    def _key(self) -> tuple[Any, ...]:
        return (self.line, self.column, self.end_column, self.end_line)


class Node(Frozen):
    """Base of every node; ``span`` is where the node is written. Built with keywords."""

    __slots__ = ("span",)
    span: Span

    def children(self) -> tuple["Node", ...]:
        """The direct sub-expressions, left to right."""
        out: list[Node] = []
        for name in self._fields[1:]:
            value = getattr(self, name)
            if isinstance(value, Node):
                out.append(value)
            elif isinstance(value, tuple):
                out.extend(v for v in value if isinstance(v, Node))
        return tuple(out)


def fields(node: Node) -> tuple[str, ...]:
    """The names of ``node``'s fields, ``span`` first."""
    return node._fields


replace = _replace


def operator_span(node: Node, i: int = 0) -> Span:
    """Where the operator of ``node`` is written (its ``i``-th of a chained comparison), or the
    node's own span when it has no separate operator."""
    if isinstance(node, Compare) and i < len(node.op_spans):
        return node.op_spans[i]
    return getattr(node, "op_span", None) or node.span


# --- literals ---------------------------------------------------------------------------------

class Number(Node):
    """An integer literal: ``42``. (Fractions arise only from ``/``; there are no decimal literals.)"""

    __slots__ = ("value",)
    value: int


class String(Node):
    """A string literal, ``'鋼'`` or ``"鋼"``; ``value`` is the text without quotes, escapes resolved."""

    __slots__ = ("value",)
    value: str


class Boolean(Node):
    """``true`` or ``false``."""

    __slots__ = ("value",)
    value: bool


class Null(Node):
    """``null``: the absent value."""

    __slots__ = ()


class ListLiteral(Node):
    """A list ``[1, 2, x]``; ``items`` are the element expressions."""

    __slots__ = ("items",)
    items: tuple[Node, ...]


# --- names and paths --------------------------------------------------------------------------

class Name(Node):
    """A root variable: ``item`` in ``item.quality``, or ``能力``. Looked up in the environment."""

    __slots__ = ("name",)
    name: str


class Attribute(Node):
    """A field of a path: ``target.name``. On a mapping it is its key ``name``; on a list it is the
    list of that field of every element (projection); on null it is null."""

    __slots__ = ("target", "name")
    target: Node
    name: str


class Index(Node):
    """Indexing ``target[index]``: a list by integer position (negative from the end), a mapping by
    key. ``op_span`` is where its ``[`` is written (errors of the indexing point there)."""

    __slots__ = ("target", "index", "op_span")
    _defaults = {"op_span": None}
    target: Node
    index: Node
    op_span: Span | None


# --- dice -------------------------------------------------------------------------------------

class Dice(Node):
    """``NdM``: the sum of ``count`` dice of ``faces`` faces (``dM`` has count 1). Bounds are
    checked by the parser: 1 <= count <= MAX_DICE_PER_TERM, 1 <= faces <= MAX_FACES."""

    __slots__ = ("count", "faces")
    count: int
    faces: int


class D66(Node):
    """``d66``: two six-sided dice read as tens and units, 11..66 (36 values, each 1/36)."""

    __slots__ = ()


# --- operators --------------------------------------------------------------------------------

class Unary(Node):
    """``-x``, ``+x`` or ``not x``; ``op`` is ``"-"``, ``"+"`` or ``"not"``."""

    __slots__ = ("op", "operand")
    op: str
    operand: Node


class Binary(Node):
    """Arithmetic ``left op right``; ``op`` is one of ``+ - * / // % **``. ``op_span`` is where the
    operator is written (errors of the operation point there)."""

    __slots__ = ("op", "left", "right", "op_span")
    _defaults = {"op_span": None}
    op: str
    left: Node
    right: Node
    op_span: Span | None


class Compare(Node):
    """A comparison, possibly chained like Python: ``1 <= x < 6`` is ``1 <= x and x < 6`` (each
    operand evaluated once). ``ops[i]`` joins ``operands[i]`` and ``operands[i + 1]``; ops are
    ``== != < <= > >= in`` and ``not in``; ``op_spans[i]`` is where ``ops[i]`` is written."""

    __slots__ = ("ops", "operands", "op_spans")
    _defaults = {"op_spans": ()}
    ops: tuple[str, ...]
    operands: tuple[Node, ...]
    op_spans: tuple[Span, ...]


class Logical(Node):
    """``left and right`` / ``left or right`` (``op``), short-circuit, giving a boolean."""

    __slots__ = ("op", "left", "right")
    op: str
    left: Node
    right: Node


class Conditional(Node):
    """``then if condition else otherwise`` (Python order): only the chosen branch is evaluated."""

    __slots__ = ("condition", "then", "otherwise")
    condition: Node
    then: Node
    otherwise: Node


class Call(Node):
    """A function call ``name(args...)``; ``name_span`` is where the function name is written."""

    __slots__ = ("name", "args", "name_span")
    name: str
    args: tuple[Node, ...]
    name_span: Span


# --- local names ------------------------------------------------------------------------------

class Local(Node):
    """A name bound inside the expression (by ``let`` or a ``for`` clause), not read from the
    environment; the parser resolves every such use, so ``Name`` nodes are the free names only."""

    __slots__ = ("name",)
    name: str


class Let(Node):
    """``let name = value in body``: ``value`` evaluated once, ``body`` sees it as ``name``
    (``let a = 1, b = a + 1 in ...`` is two nested Lets). ``name_span`` is where the name is written."""

    __slots__ = ("name", "value", "body", "name_span")
    name: str
    value: Node
    body: Node
    name_span: Span


class ForClause(Node):
    """``for name in iterable`` inside a comprehension; ``iterable`` must give a list."""

    __slots__ = ("name", "iterable", "name_span")
    name: str
    iterable: Node
    name_span: Span


class IfClause(Node):
    """``if condition`` inside a comprehension: the elements for which it is false are skipped."""

    __slots__ = ("condition",)
    condition: Node


class Comprehension(Node):
    """``[element for x in xs if c ...]`` (``generator`` False) or the sole argument of a call,
    ``all(element for x in xs)`` (``generator`` True). ``clauses`` start with a ``ForClause``; each
    clause sees the names of the ``for`` clauses before it, and ``element`` sees them all."""

    __slots__ = ("element", "clauses", "generator")
    _defaults = {"generator": False}
    element: Node
    clauses: tuple[Node, ...]
    generator: bool


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
