"""The fast path of evaluation: an AST without dice -> one generated Python function whose
statements use native operations behind exact type guards.

The generated function either returns exactly what the closure compiler (``rules_dsl.compiler``)
would, or raises; on any exception it re-evaluates through the closures, which give the value or
the located error. So the fast path never decides an error message, and never a different value.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

from . import ast
from .compiler import _constant, compile_ast
from .errors import MprError
from .functions import FUNCTIONS, fn_floor, fn_ceil
from .limits import MAX_INT_BITS, MAX_LIST_LENGTH, MAX_LOOP_ITERATIONS
from .operators import BINARY, COMPARE, UNARY, contains, field, index

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    Fn = Callable[..., Any]
else:
    Fn = Callable  # the precise type is for the type checker only

_SMALL = 2 ** (MAX_INT_BITS // 2)
_LIMIT = 2 ** MAX_INT_BITS  # whole numbers stay strictly between -_LIMIT and _LIMIT
_MAX_GENERATED_NODES = 400


class _Fallback(Exception):
    """Raised by generated code when a value is not of the kind its fast path handles."""


_HELPERS: dict[str, Any] = {
    "_Fallback": _Fallback, "_field": field, "_index": index, "_contains": contains,
    "_floor": fn_floor, "_ceil": fn_ceil,
    "_count_made": lambda values: sum(1 for v in values if v is not False),
    **{f"_op{i}": fn for i, fn in enumerate(BINARY.values())},
    **{f"_cmp{i}": fn for i, fn in enumerate(COMPARE.values())},
    **{f"_un{i}": fn for i, fn in enumerate(UNARY.values())},
    **{f"_f_{name}": f.impl for name, f in FUNCTIONS.items()},
}
_BINARY_NAME = {op: f"_op{i}" for i, op in enumerate(BINARY)}
_COMPARE_NAME = {op: f"_cmp{i}" for i, op in enumerate(COMPARE)}
_UNARY_NAME = {op: f"_un{i}" for i, op in enumerate(UNARY)}
_ORDERED = {"<", "<=", ">", ">="}


def _is_int_literal(code: str) -> bool:
    return code.lstrip("-").isdigit()


class _Generator:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.namespace: dict[str, Any] = dict(_HELPERS)
        self.booleans: set[str] = set()  # temps known to hold True or False
        self.locals: dict[str, str] = {}  # names bound by let/for -> their Python variables

    def temp(self) -> str:
        self.count += 1
        return f"_t{self.count}"

    def const(self, value: Any) -> str:
        name = f"_k{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def need_boolean(self, code: str, d: int) -> None:
        if code not in self.booleans and code not in ("True", "False"):
            self.emit(d, f"if {code} is not True and {code} is not False: raise _Fallback")

    def guard(self, *codes: str) -> str:
        """``type(x) is int and ...`` for the operands that are not int literals."""
        checks = [f"type({c}) is int" for c in codes if not _is_int_literal(c)]
        return " and ".join(checks) or "True"

    def value(self, node: ast.Node, d: int) -> str:
        """Emit statements computing ``node``; return the code (a temp or a literal) of its value.
        A part that reads no name (a constant list, ``min(3, 4)``) is computed once, here."""
        if isinstance(node, (ast.ListLiteral, ast.Call, ast.Binary, ast.Unary)) and _constant(node):
            try:
                return self.const(compile_ast(node)({}, None))
            except MprError:
                pass  # reported at evaluation, by the closures
        method: Callable[[ast.Node, int], str] = getattr(self, "_" + type(node).__name__.lower())
        return method(node, d)

    def _number(self, node: ast.Number, d: int) -> str:
        return repr(node.value)

    def _string(self, node: ast.String, d: int) -> str:
        return repr(node.value)

    def _boolean(self, node: ast.Boolean, d: int) -> str:
        return repr(node.value)

    def _null(self, node: ast.Null, d: int) -> str:
        return "None"

    def _listliteral(self, node: ast.ListLiteral, d: int) -> str:
        items = [self.value(i, d) for i in node.items]
        t = self.temp()
        self.emit(d, f"{t} = [{', '.join(items)}]")
        return t

    def _name(self, node: ast.Name, d: int) -> str:
        t = self.temp()
        self.emit(d, f"{t} = env[{node.name!r}]")
        return t

    def _attribute(self, node: ast.Attribute, d: int) -> str:
        target = self.value(node.target, d)
        t = self.temp()
        self.emit(d, f"{t} = {target}[{node.name!r}] if type({target}) is dict "
                     f"else _field({target}, {node.name!r})")
        return t

    def _index(self, node: ast.Index, d: int) -> str:
        target, key = self.value(node.target, d), self.value(node.index, d)
        t = self.temp()
        self.emit(d, f"{t} = _index({target}, {key})")
        return t

    def _unary(self, node: ast.Unary, d: int) -> str:
        a = self.value(node.operand, d)
        t = self.temp()
        if node.op == "not":
            self.need_boolean(a, d)
            self.emit(d, f"{t} = {a} is False")
            self.booleans.add(t)
        else:
            self.emit(d, f"{t} = {node.op}{a} if {self.guard(a)} else {_UNARY_NAME[node.op]}({a})")
        return t

    def _binary(self, node: ast.Binary, d: int) -> str:
        a, b = self.value(node.left, d), self.value(node.right, d)
        t, op, slow = self.temp(), node.op, f"{_BINARY_NAME[node.op]}({a}, {b})"
        if op in ("+", "-"):  # the result is checked against the bound, once
            limit = self.const(_LIMIT)
            self.emit(d, f"{t} = ({t} if -{limit} < ({t} := {a} {op} {b}) < {limit} else {slow}) "
                         f"if {self.guard(a, b)} else {slow}")
        elif op == "*":
            ranges = " and ".join(f"-{_SMALL} < {c} < {_SMALL}" for c in (a, b)
                                  if not (_is_int_literal(c) and abs(int(c)) < 2 ** 16)) or "True"
            self.emit(d, f"{t} = {a} * {b} if {self.guard(a, b)} and {ranges} else {slow}")
        elif op in ("//", "%"):
            nonzero = "" if _is_int_literal(b) and int(b) != 0 else f" and {b}"
            self.emit(d, f"{t} = {a} {op} {b} if {self.guard(a, b)}{nonzero} else {slow}")
        else:
            self.emit(d, f"{t} = {slow}")
        return t

    def _comparison(self, op: str, a: str, right: ast.Node, depth: int) -> tuple[str, str]:
        """(code of the right operand, code of the comparison)."""
        negate = "not " if op == "not in" else ""
        if op in ("in", "not in") and isinstance(right, ast.ListLiteral) and all(
                isinstance(i, ast.String) for i in right.items):
            strings = [i.value for i in right.items if isinstance(i, ast.String)]
            members, listed = self.const(frozenset(strings)), self.const(tuple(strings))
            return listed, (f"({negate}{a} in {members}) if type({a}) is str "
                            f"else {negate}_contains({a}, {listed})")
        b = self.value(right, depth)
        if op in ("==", "!="):
            return b, f"{a} {op} {b}"
        if op in _ORDERED:
            return b, f"{a} {op} {b} if {self.guard(a, b)} else {_COMPARE_NAME[op]}({a}, {b})"
        return b, f"{negate}_contains({a}, {b})"

    def _compare(self, node: ast.Compare, d: int) -> str:
        t = self.temp()
        self.booleans.add(t)
        a = self.value(node.operands[0], d)
        depth = d
        for i, op in enumerate(node.ops):
            b, comparison = self._comparison(op, a, node.operands[i + 1], depth)
            self.emit(depth, f"{t} = {comparison}")
            if i + 1 < len(node.ops):
                self.emit(depth, f"if {t}:")
                depth += 1
            a = b
        return t

    def _logical(self, node: ast.Logical, d: int) -> str:
        a = self.value(node.left, d)
        t = self.temp()
        self.booleans.add(t)
        self.need_boolean(a, d)
        self.emit(d, f"if {'' if node.op == 'and' else 'not '}{a}:")
        b = self.value(node.right, d + 1)
        self.need_boolean(b, d + 1)
        self.emit(d + 1, f"{t} = {b}")
        self.emit(d, "else:")
        self.emit(d + 1, f"{t} = {node.op == 'or'}")
        return t

    def _conditional(self, node: ast.Conditional, d: int) -> str:
        c = self.value(node.condition, d)
        t = self.temp()
        self.need_boolean(c, d)
        self.emit(d, f"if {c}:")
        self.emit(d + 1, f"{t} = {self.value(node.then, d + 1)}")
        self.emit(d, "else:")
        self.emit(d + 1, f"{t} = {self.value(node.otherwise, d + 1)}")
        return t

    def _local(self, node: ast.Local, d: int) -> str:
        return self.locals[node.name]

    def _bind(self, name: str) -> tuple[str, str | None]:
        var, old = self.temp(), self.locals.get(name)
        self.locals[name] = var
        return var, old

    def _unbind(self, name: str, old: str | None) -> None:
        if old is None:
            del self.locals[name]
        else:
            self.locals[name] = old

    def _let(self, node: ast.Let, d: int) -> str:
        value = self.value(node.value, d)
        var, old = self._bind(node.name)
        self.emit(d, f"{var} = {value}")
        result = self.value(node.body, d)
        self._unbind(node.name, old)
        return result

    def _comprehension(self, node: ast.Comprehension, d: int) -> str:
        """Python loops: each ``for`` a loop over a list, each ``if`` a ``continue``."""
        t, depth, bound = self.temp(), d, []
        self.emit(d, f"{t} = []")
        for clause in node.clauses:
            if isinstance(clause, ast.ForClause):
                values = self.value(clause.iterable, depth)
                self.emit(depth, f"if type({values}) is not list: raise _Fallback")
                var, old = self._bind(clause.name)
                bound.append((clause.name, old))
                self.emit(depth, f"for {var} in {values}:")
                depth += 1
                self.emit(depth, "_rounds += 1")
                self.emit(depth, f"if _rounds > {MAX_LOOP_ITERATIONS}: raise _Fallback")
            else:
                assert isinstance(clause, ast.IfClause)  # a clause is a for or an if
                c = self.value(clause.condition, depth)
                self.need_boolean(c, depth)
                self.emit(depth, f"if not {c}: continue")
        element = self.value(node.element, depth)
        self.emit(depth, f"{t}.append({element})")
        self.emit(depth, f"if len({t}) > {MAX_LIST_LENGTH}: raise _Fallback")
        for name, old in reversed(bound):
            self._unbind(name, old)
        return t

    def _call(self, node: ast.Call, d: int) -> str:
        args = node.args
        if len(args) == 1 and isinstance(args[0], ast.Comprehension):
            listed, t = self._comprehension(args[0], d), self.temp()
            if node.name == "count":
                self.emit(d, f"{t} = _count_made({listed})")
            else:
                self.emit(d, f"{t} = _f_{node.name}({listed})")
            return t
        t = self.temp()
        if node.name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], ast.Binary) \
                and args[0].op == "/":
            a, b = self.value(args[0].left, d), self.value(args[0].right, d)
            fast = f"-(-{a} // {b})" if node.name == "ceil" else f"{a} // {b}"
            nonzero = "" if _is_int_literal(b) and int(b) != 0 else f" and {b}"
            self.emit(d, f"{t} = {fast} if {self.guard(a, b)}{nonzero} "
                         f"else _{node.name}({_BINARY_NAME['/']}({a}, {b}))")
            return t
        values = [self.value(a, d) for a in args]
        if node.name in ("min", "max") and len(values) == 2:
            x, y = values
            keep = "<=" if node.name == "min" else ">="
            self.emit(d, f"{t} = ({x} if {x} {keep} {y} else {y}) if {self.guard(x, y)} "
                         f"else _f_{node.name}({x}, {y})")
            return t
        if node.name in ("floor", "ceil", "round") and len(values) == 1:
            (x,) = values
            self.emit(d, f"{t} = {x} if type({x}) is int else _f_{node.name}({x})")
            return t
        if node.name == "abs" and len(values) == 1:
            (x,) = values
            self.emit(d, f"{t} = ({x} if {x} >= 0 else -{x}) if type({x}) is int else _f_abs({x})")
            return t
        if node.name == "clamp" and all(_is_int_literal(v) for v in values[1:]) \
                and int(values[1]) <= int(values[2]):
            x, lo, hi = values
            self.emit(d, f"{t} = ({lo} if {x} < {lo} else {hi} if {x} > {hi} else {x}) "
                         f"if type({x}) is int else _f_clamp({x}, {lo}, {hi})")
            return t
        self.emit(d, f"{t} = _f_{node.name}({', '.join(values)})")
        return t


def generate(node: ast.Node, slow: Fn) -> Fn | None:
    """The fast function ``fn(env, dice=None)`` for ``node`` (None when it rolls dice or is too
    large to generate); ``slow`` is the closure it falls back to."""
    nodes = list(ast.walk(node))
    if len(nodes) > _MAX_GENERATED_NODES or any(
            isinstance(n, (ast.Dice, ast.D66)) for n in nodes):
        return None
    generator = _Generator()
    result = generator.value(node, 2)
    body = "\n".join(generator.lines)
    rounds = "    _rounds = 0\n" if "_rounds" in body else ""
    source = (f"def _expression(env, dice=None):\n{rounds}    try:\n{body}\n"
              f"        return {result}\n"
              f"    except Exception:\n        return _slow(env, dice)\n")
    generator.namespace["_slow"] = slow
    try:
        with warnings.catch_warnings():  # e.g. "null[0]": Python's hint is not for GMs
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(source, "<mprules expression>", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    exec(code, generator.namespace)  # noqa: S102 - source generated from a checked AST only
    expression: Callable[..., Any] = generator.namespace["_expression"]
    return expression
