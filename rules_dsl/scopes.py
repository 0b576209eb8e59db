"""Local names: which uses of a name are bound inside the expression (by ``let`` or a ``for``
clause) rather than read from the environment.

After parsing, every ``Name`` inside the scope of a binding of the same name becomes an
``ast.Local``, so the free names of an expression are exactly its ``Name`` nodes. Binding a name
that an enclosing ``let``/``for`` already binds is an error (one name, one meaning), and so is
nesting more ``for`` clauses than ``MAX_LOOP_NESTING``.
"""
from __future__ import annotations


from . import ast
from .errors import Location, MprError, define
from .limits import MAX_LOOP_NESTING
from .normalize import at

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

LOOPS_TOO_DEEP = define(
    "MPR125", "too many nested 'for' clauses: more than {limit}",
    "'for' の入れ子が多すぎます（上限 {limit}）")
REBOUND = define(
    "MPR127", "'{name}' is already a name here{where}; choose another name",
    "'{name}' はここですでに使われている名前です{where_ja}。別の名前にしてください")


def _rebound(name: str, span: ast.Span, origin: Location | None, outer: bool) -> MprError:
    where = " (of the rule's inputs)" if outer else " (bound by an enclosing let or for)"
    where_ja = "（ルールの入力の名前）" if outer else "（外側の let か for で使われています）"
    return MprError(REBOUND, at(origin, span.line, span.column), name=name, where=where,
                    where_ja=where_ja)


def resolve(node: ast.Node, origin: Location | None) -> ast.Node:
    """``node`` with the names bound by ``let``/``for`` turned into ``Local`` nodes."""
    return _Resolver(origin).visit(node, frozenset(), 0)


class _Resolver:
    def __init__(self, origin: Location | None) -> None:
        self.origin = origin

    def _bind(self, name: str, span: ast.Span, bound: frozenset[str]) -> frozenset[str]:
        if name in bound:
            raise _rebound(name, span, self.origin, outer=False)
        return bound | {name}

    def visit(self, node: ast.Node, bound: frozenset[str], loops: int) -> ast.Node:
        if isinstance(node, ast.Name):
            return ast.Local(name=node.name, span=node.span) if node.name in bound else node
        if isinstance(node, ast.Let):
            value = self.visit(node.value, bound, loops)
            inner = self._bind(node.name, node.name_span, bound)
            return ast.replace(node, value=value, body=self.visit(node.body, inner, loops))
        if isinstance(node, ast.Comprehension):
            clauses: list[ast.Node] = []
            for clause in node.clauses:
                if isinstance(clause, ast.ForClause):
                    iterable = self.visit(clause.iterable, bound, loops)
                    loops += 1
                    if loops > MAX_LOOP_NESTING:
                        raise MprError(LOOPS_TOO_DEEP, at(self.origin, clause.span.line,
                                                          clause.span.column),
                                       limit=MAX_LOOP_NESTING)
                    bound = self._bind(clause.name, clause.name_span, bound)
                    clauses.append(ast.replace(clause, iterable=iterable))
                else:
                    clauses.append(self.visit(clause, bound, loops))
            return ast.replace(node, clauses=tuple(clauses),
                                       element=self.visit(node.element, bound, loops))
        changes: dict[str, Any] = {}
        for name in ast.fields(node):
            value = getattr(node, name)
            if isinstance(value, ast.Node) and name != "span":
                changes[name] = self.visit(value, bound, loops)
            elif isinstance(value, tuple) and value and isinstance(value[0], ast.Node):
                changes[name] = tuple(self.visit(v, bound, loops) for v in value)
        return ast.replace(node, **changes) if changes else node


def check_shadowing(node: ast.Node, names: frozenset[str],
                    origin: Location | None) -> list[MprError]:
    """A ``let``/``for`` binding one of the environment's ``names`` (known when checking a rule)."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, (ast.Let, ast.ForClause)) and n.name in names:
            found.append(_rebound(n.name, n.name_span, origin, outer=True))
    return found
