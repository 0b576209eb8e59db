"""The fast path of evaluation: an AST without dice -> generated Python functions whose statements
use native operations behind exact type guards.

Two functions are generated. The *speculative* one assumes that the values arithmetic works on are
whole numbers of at most ``GUARD_BITS`` bits: it checks each such value once, where it is read, and
then computes with plain Python operators, the integer limit being proved by counting bits rather
than tested after each operation. When a value is of another kind (a fraction, a string, a huge
number) it gives up and the *generic* function runs: each operation guarded by the exact types it
handles natively, with the general operator otherwise. The generic function in turn gives up on any
exception and re-evaluates through the closure compiler (``rules_dsl.compiler``), which gives the
value or the located error. So generated code never decides an error message, nor a different value.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

from . import ast
from .codegen_calls import GUARD, GUARD_BITS, emit_call, emit_comprehension
from .compiler import _constant, compile_ast
from .errors import MprError
from .generated import BINARY_NAME, COMPARE_NAME, FILE, HELPERS, UNARY_NAME
from .limits import MAX_INT_BITS

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    Fn = Callable[..., Any]
else:
    Fn = Callable  # the precise type is for the type checker only

_SMALL = 2 ** (MAX_INT_BITS // 2)
_LIMIT = 2 ** MAX_INT_BITS  # whole numbers stay strictly between -_LIMIT and _LIMIT
_MAX_GENERATED_NODES = 400
_ORDERED = {"<", "<=", ">", ">="}
_NOT_NUMBERS = (ast.String, ast.Boolean, ast.Null, ast.ListLiteral, ast.Comprehension)


def is_int_literal(code: str) -> bool:
    return code.lstrip("-").isdigit()


class Generator:
    """Emits the statements of one function; ``speculate`` chooses the speculative variant."""

    def __init__(self, speculate: bool) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.namespace: dict[str, Any] = dict(HELPERS)
        self.speculate = speculate
        self.speculated = False
        self.booleans: set[str] = set()  # temps known to hold True or False
        self.ints: dict[str, int] = {}  # codes known to hold a whole number -> a bound of its bits
        self.locals: dict[str, str] = {}  # names bound by let/for -> their Python variables

    def temp(self) -> str:
        self.count += 1
        return f"_t{self.count}"

    def const(self, value: Any) -> str:
        name = f"_k{len(self.namespace)}"
        self.namespace[name] = value
        if type(value) is int:
            self.ints[name] = value.bit_length()
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def facts(self) -> dict[str, int]:
        """What is known now; give it back to ``restore`` when a nested block ends."""
        return dict(self.ints)

    def restore(self, facts: dict[str, int]) -> None:
        self.ints = facts

    def need_boolean(self, code: str, d: int) -> None:
        if code not in self.booleans and code not in ("True", "False"):
            self.emit(d, f"if {code} is not True and {code} is not False: raise _Fallback")

    def guard(self, *codes: str) -> str:
        """``type(x) is int and ...`` for the operands not known to be whole numbers."""
        checks = [f"type({c}) is int" for c in codes if self.bits(c) is None]
        return " and ".join(checks) or "True"

    def bits(self, code: str) -> int | None:
        """A bound of the bits of ``code`` when it is known to be a whole number."""
        if is_int_literal(code):
            return abs(int(code)).bit_length()
        return self.ints.get(code)

    def whole(self, code: str, d: int) -> int | None:
        """The bits of ``code`` as a whole number, speculating (with a guard) when allowed."""
        known = self.bits(code)
        if known is not None or not self.speculate or not code.startswith("_t"):
            return known
        self.emit(d, f"if type({code}) is not int or {code} < -{GUARD} or {code} > {GUARD}: "
                     "raise _Fallback")
        self.speculated = True
        self.ints[code] = GUARD_BITS
        return GUARD_BITS

    def wholes(self, nodes: tuple[ast.Node, ...], codes: list[str], d: int) -> list[int] | None:
        """The bits of each operand when all are (or are speculated to be) whole numbers."""
        if any(isinstance(n, _NOT_NUMBERS) for n in nodes):
            return None
        if not self.speculate and any(self.bits(c) is None for c in codes):
            return None
        found = [self.whole(c, d) for c in codes]
        return None if None in found else [b for b in found if b is not None]

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
        if is_int_literal(key):  # Python's own IndexError sends an index out of range to the closures
            fast = f"type({target}) is list"
        elif isinstance(node.index, ast.String):
            fast = f"type({target}) is dict"
        else:
            fast = f"type({target}) is list and type({key}) is int"
        self.emit(d, f"{t} = {target}[{key}] if {fast} else _index({target}, {key})")
        return t

    def _unary(self, node: ast.Unary, d: int) -> str:
        a = self.value(node.operand, d)
        t = self.temp()
        if node.op == "not":
            self.need_boolean(a, d)
            self.emit(d, f"{t} = {a} is False")
            self.booleans.add(t)
            return t
        found = self.wholes((node.operand,), [a], d)
        if found is not None:
            self.emit(d, f"{t} = {node.op}{a}")
            self.ints[t] = found[0]
        else:
            self.emit(d, f"{t} = {node.op}{a} if {self.guard(a)} else {UNARY_NAME[node.op]}({a})")
        return t

    def _binary(self, node: ast.Binary, d: int) -> str:
        a, b = self.value(node.left, d), self.value(node.right, d)
        t, op, slow = self.temp(), node.op, f"{BINARY_NAME[node.op]}({a}, {b})"
        if op in ("+", "-", "*", "//", "%"):
            found = self.wholes((node.left, node.right), [a, b], d)
            if found is not None:
                ba, bb = found
                bits = {"+": max(ba, bb) + 1, "-": max(ba, bb) + 1, "*": ba + bb, "//": ba,
                        "%": bb}[op]
                if bits <= MAX_INT_BITS:  # proved within the limit: no check at run time
                    self.emit(d, f"{t} = {a} {op} {b}")  # a zero divisor raises: the closures report it
                    self.ints[t] = bits
                    return t
        if op in ("+", "-"):  # the result is checked against the bound, once
            high, low = self.const(_LIMIT), self.const(-_LIMIT)
            self.emit(d, f"{t} = ({t} if {low} < ({t} := {a} {op} {b}) < {high} else {slow}) "
                         f"if {self.guard(a, b)} else {slow}")
        elif op == "*":
            ranges = " and ".join(f"-{_SMALL} < {c} < {_SMALL}" for c in (a, b)
                                  if not (is_int_literal(c) and abs(int(c)) < 2 ** 16)) or "True"
            self.emit(d, f"{t} = {a} * {b} if {self.guard(a, b)} and {ranges} else {slow}")
        elif op in ("//", "%"):
            nonzero = "" if is_int_literal(b) and int(b) != 0 else f" and {b}"
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
            guard = self.guard(a, b)
            if guard == "True":
                return b, f"{a} {op} {b}"
            return b, f"{a} {op} {b} if {guard} else {COMPARE_NAME[op]}({a}, {b})"
        return b, f"{negate}_contains({a}, {b})"

    def _compare(self, node: ast.Compare, d: int) -> str:
        t = self.temp()
        self.booleans.add(t)
        a = self.value(node.operands[0], d)
        depth, facts = d, self.facts()
        for i, op in enumerate(node.ops):
            b, comparison = self._comparison(op, a, node.operands[i + 1], depth)
            self.emit(depth, f"{t} = {comparison}")
            if i + 1 < len(node.ops):
                self.emit(depth, f"if {t}:")
                depth += 1
            a = b
        self.restore(facts)
        return t

    def _logical(self, node: ast.Logical, d: int) -> str:
        a = self.value(node.left, d)
        t = self.temp()
        self.booleans.add(t)
        self.need_boolean(a, d)
        self.emit(d, f"if {'' if node.op == 'and' else 'not '}{a}:")
        facts = self.facts()
        b = self.value(node.right, d + 1)
        self.need_boolean(b, d + 1)
        self.emit(d + 1, f"{t} = {b}")
        self.restore(facts)
        self.emit(d, "else:")
        self.emit(d + 1, f"{t} = {node.op == 'or'}")
        return t

    def _conditional(self, node: ast.Conditional, d: int) -> str:
        c = self.value(node.condition, d)
        t = self.temp()
        self.need_boolean(c, d)
        self.emit(d, f"if {c}:")
        facts = self.facts()
        then = self.value(node.then, d + 1)
        self.emit(d + 1, f"{t} = {then}")
        then_bits = self.bits(then)
        self.restore(dict(facts))
        self.emit(d, "else:")
        otherwise = self.value(node.otherwise, d + 1)
        self.emit(d + 1, f"{t} = {otherwise}")
        otherwise_bits = self.bits(otherwise)
        self.restore(facts)
        if then_bits is not None and otherwise_bits is not None:
            self.ints[t] = max(then_bits, otherwise_bits)
        if then in self.booleans | {"True", "False"} and otherwise in self.booleans | {"True", "False"}:
            self.booleans.add(t)
        return t

    def _dice(self, node: ast.Dice, d: int) -> str:
        t = self.temp()
        rolled = f"dice.roll({node.faces}, 1)[0]" if node.count == 1 else \
            f"sum(dice.roll({node.faces}, {node.count}))"
        self.emit(d, f"{t} = {rolled}")
        self.ints[t] = (node.faces * node.count).bit_length()
        return t

    def _d66(self, node: ast.D66, d: int) -> str:
        t, pair = self.temp(), self.temp()
        self.emit(d, f"{pair} = dice.roll(6, 2)")
        self.emit(d, f"{t} = {pair}[0] * 10 + {pair}[1]")
        self.ints[t] = 7
        return t

    def _local(self, node: ast.Local, d: int) -> str:
        return self.locals[node.name]

    def bind(self, name: str) -> tuple[str, str | None]:
        var, old = self.temp(), self.locals.get(name)
        self.locals[name] = var
        return var, old

    def unbind(self, name: str, old: str | None) -> None:
        if old is None:
            del self.locals[name]
        else:
            self.locals[name] = old

    def _let(self, node: ast.Let, d: int) -> str:
        value = self.value(node.value, d)
        var, old = self.bind(node.name)
        self.emit(d, f"{var} = {value}")
        if self.bits(value) is not None:
            self.ints[var] = self.bits(value) or 0
        if value in self.booleans:
            self.booleans.add(var)
        result = self.value(node.body, d)
        self.unbind(node.name, old)
        return result

    def _comprehension(self, node: ast.Comprehension, d: int) -> str:
        return emit_comprehension(self, node, d)

    def _call(self, node: ast.Call, d: int) -> str:
        return emit_call(self, node, d)


def _function(node: ast.Node, speculate: bool, fallback: Fn,
              dice: bool = False) -> tuple[Fn | None, bool]:
    """(the generated function, whether it speculated) for ``node``. With ``dice``, the function
    rolls through a known dice source and hands over to ``fallback`` with the dice it rolled, given
    again (``Replay``); any other source (or none) goes to ``fallback`` at once."""
    generator = Generator(speculate)
    result = generator.value(node, 2)
    body = "\n".join(generator.lines)
    start = ("    _rounds = 0\n" if "_rounds" in body else "") + ("    _held = 0\n" if "_held" in body else "")
    again = "dice"
    if dice:
        start = ("    if type(dice) not in _SOURCES: return _generic(env, dice)\n"
                 f"    _mark = len(dice.rolled)\n{start}")
        again = "_Replay(dice, _mark)"
    source = (f"def _expression(env, dice=None):\n{start}    try:\n{body}\n"
              f"        return {result}\n"
              f"    except Exception:\n        return _generic(env, {again})\n")
    generator.namespace["_generic"] = fallback
    try:
        with warnings.catch_warnings():  # e.g. "null[0]": Python's hint is not for GMs
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(source, FILE, "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None, False
    exec(code, generator.namespace)  # noqa: S102 - source generated from a checked AST only
    expression: Fn = generator.namespace["_expression"]
    return expression, generator.speculated


def generate(node: ast.Node, slow: Fn) -> Fn | None:
    """The fast function ``fn(env, dice=None)`` for ``node`` (None when it is too large to
    generate, or rolls dice inside a comprehension); ``slow`` is the closure it falls back to."""
    nodes = list(ast.walk(node))
    if len(nodes) > _MAX_GENERATED_NODES:
        return None
    if any(isinstance(n, (ast.Dice, ast.D66)) for n in nodes):
        # Generated code must roll exactly the dice the closures roll, in their order: loops
        # (which generated code may run further than the closures) keep to the closures.
        loops = [n for n in nodes if isinstance(n, ast.Comprehension)]
        if any(isinstance(n, (ast.Dice, ast.D66)) for loop in loops for n in ast.walk(loop)):
            return None
        return _function(node, True, slow, dice=True)[0]
    fast, speculated = _function(node, True, slow)
    if fast is None or not speculated:
        return fast
    generic, _ = _function(node, False, slow)
    if generic is None:
        return None
    fast.__globals__["_generic"] = generic
    return fast
