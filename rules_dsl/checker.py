"""The static checker: errors knowable before running (unknown functions, wrong arity, operators
on literals of the wrong kind, unknown root names when the allowed names are known).

Kinds are inferred from literals and operators only; a name may hold anything (``"any"``), so the
checker never refuses an expression that could succeed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from . import ast
from .errors import Location, MprError, define, did_you_mean
from .functions import BAD_ARGUMENT, FUNCTIONS, KIND_JA
from .normalize import at
from .loops import NOT_A_LIST
from .operators import NOT_BOOLEAN, TYPE_MISMATCH
from .scopes import check_shadowing

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_FUNCTION = define(
    "MPR130", "unknown function '{name}'{hint}; the functions are {known}",
    "'{name}' という関数はありません{hint}。使える関数: {known}")
WRONG_ARITY = define(
    "MPR131", "{name}() takes {wanted} argument(s), got {got}",
    "{name}() の引数は {wanted} 個です（{got} 個渡されています）")
UNKNOWN_ROOT = define(
    "MPR133", "unknown name '{name}'{hint}; this expression can use {known}",
    "'{name}' という名前はありません{hint}。この式で使える名前: {known_ja}")

ANY = "any"
_ARITHMETIC = {"-", "*", "/", "//", "%", "**"}
_ORDERED = {"<", "<=", ">", ">="}


class Checker:
    """Walks one AST, collecting every finding (not only the first)."""

    def __init__(self, origin: Location | None, names: Iterable[str] | None) -> None:
        self.origin = origin
        self.names = None if names is None else frozenset(names)
        self.findings: list[MprError] = []

    def _error(self, code: str, node: ast.Node | ast.Span, **args: Any) -> None:
        span = node if isinstance(node, ast.Span) else node.span
        self.findings.append(MprError(code, at(self.origin, span.line, span.column), **args))

    def _mismatch(self, op: str, node: ast.Node | ast.Span, *found: str) -> None:
        kinds = ["value" if k == ANY else k for k in found]
        self._error(TYPE_MISMATCH, node, op=op, kinds=" and ".join(kinds),
                    kinds_ja="と".join(KIND_JA.get(k, k) for k in kinds))

    def _need_boolean(self, what: str, node: ast.Node, k: str) -> None:
        if k not in (ANY, "boolean"):
            self._error(NOT_BOOLEAN, node, what=what, kind=k, kind_ja=KIND_JA.get(k, k))

    def kind(self, node: ast.Node) -> str:
        """The kind ``node`` evaluates to, or ``"any"``; records findings on the way."""
        method: Callable[[ast.Node], str] = getattr(self, "_" + type(node).__name__.lower())
        return method(node)

    def _number(self, node: ast.Node) -> str:
        return "number"

    _dice = _d66 = _number

    def _string(self, node: ast.String) -> str:
        return "string"

    def _boolean(self, node: ast.Boolean) -> str:
        return "boolean"

    def _null(self, node: ast.Null) -> str:
        return "null"

    def _listliteral(self, node: ast.ListLiteral) -> str:
        for item in node.items:
            self.kind(item)
        return "list"

    def _name(self, node: ast.Name) -> str:
        if self.names is not None and node.name not in self.names:
            hint = did_you_mean(node.name, self.names)
            known = known_ja = ", ".join(sorted(self.names))
            if not known:
                known = "none (no names were given values)"
                known_ja = "なし（値が与えられた名前がありません）"
            self._error(UNKNOWN_ROOT, node, name=node.name, hint=hint, known=known,
                        known_ja=known_ja)
        return ANY

    def _attribute(self, node: ast.Attribute) -> str:
        k = self.kind(node.target)
        if k in ("number", "string", "boolean"):
            self._mismatch(".", node, k)
        return "null" if k == "null" else ANY

    def _index(self, node: ast.Index) -> str:
        target, key = self.kind(node.target), self.kind(node.index)
        if target in ("number", "boolean") or (target in ("list", "string") and
                                               key not in (ANY, "number")):
            self._mismatch("[]", ast.operator_span(node), target, key)
        return "null" if target == "null" else ANY

    def _unary(self, node: ast.Unary) -> str:
        k = self.kind(node.operand)
        if node.op == "not":
            self._need_boolean("'not'", node, k)
            return "boolean"
        if k not in (ANY, "number"):
            self._mismatch(node.op, node, k)
        return "number"

    def _binary(self, node: ast.Binary) -> str:
        left, right = self.kind(node.left), self.kind(node.right)
        if node.op == "+":
            known = {left, right} - {ANY}
            if known and (known - {"number", "string", "list"} or len(known) > 1):
                self._mismatch("+", ast.operator_span(node), left, right)
            return known.pop() if len(known) == 1 else ANY
        if {left, right} - {ANY, "number"}:
            self._mismatch(node.op, ast.operator_span(node), left, right)
        return "number"

    def _compare(self, node: ast.Compare) -> str:
        kinds = [self.kind(o) for o in node.operands]
        for i, (op, left, right) in enumerate(zip(node.ops, kinds, kinds[1:])):
            where = ast.operator_span(node, i)
            if op in _ORDERED:
                known = {left, right} - {ANY}
                if known - {"number", "string"} or len(known) > 1:
                    self._mismatch(op, where, left, right)
            elif op in ("in", "not in") and right not in (ANY, "list", "string", "mapping"):
                self._mismatch(op, where, left, right)
        return "boolean"

    def _logical(self, node: ast.Logical) -> str:
        self._need_boolean(f"'{node.op}'", node.left, self.kind(node.left))
        self._need_boolean(f"'{node.op}'", node.right, self.kind(node.right))
        return "boolean"

    def _conditional(self, node: ast.Conditional) -> str:
        self._need_boolean("'if'", node.condition, self.kind(node.condition))
        then, otherwise = self.kind(node.then), self.kind(node.otherwise)
        return then if then == otherwise else ANY

    def _local(self, node: ast.Local) -> str:
        return ANY

    def _let(self, node: ast.Let) -> str:
        self.kind(node.value)
        return self.kind(node.body)

    def _forclause(self, node: ast.ForClause) -> str:
        k = self.kind(node.iterable)
        if k not in (ANY, "list"):
            self._error(NOT_A_LIST, node.iterable, kind=k, kind_ja=KIND_JA.get(k, k), hint="",
                        hint_ja="")
        return ANY

    def _ifclause(self, node: ast.IfClause) -> str:
        self._need_boolean("'if'", node.condition, self.kind(node.condition))
        return ANY

    def _comprehension(self, node: ast.Comprehension) -> str:
        for clause in node.clauses:
            self.kind(clause)
        self.kind(node.element)
        return "list"

    def _call(self, node: ast.Call) -> str:
        kinds = [self.kind(a) for a in node.args]
        function = FUNCTIONS.get(node.name)
        if function is None:
            hint = did_you_mean(node.name, FUNCTIONS)
            self._error(UNKNOWN_FUNCTION, node.name_span, name=node.name, hint=hint,
                        known=", ".join(FUNCTIONS))
            return ANY
        n = len(node.args)
        if n < function.min_args or (function.max_args is not None and n > function.max_args):
            self._error(WRONG_ARITY, node.name_span, name=node.name, wanted=function.arity(), got=n)
            return ANY
        wanted = function.args
        if node.name in ("min", "max"):
            wanted = ("list",) if n == 1 else ("number",)
        for i, (arg, k) in enumerate(zip(node.args, kinds)):
            want = wanted[min(i, len(wanted) - 1)]
            if k != ANY and want != "value" and k != want:
                self._error(BAD_ARGUMENT, arg, function=node.name, wanted=f"a {want}",
                            wanted_ja=KIND_JA[want], kind=k, kind_ja=KIND_JA.get(k, k))
        return function.returns


def check(node: ast.Node, origin: Location | None = None,
          names: Iterable[str] | None = None) -> list[MprError]:
    """Every static finding of the expression (empty when it may run)."""
    checker = Checker(origin, names)
    checker.kind(node)
    if checker.names is not None:
        checker.findings.extend(check_shadowing(node, checker.names, origin))
    return checker.findings
