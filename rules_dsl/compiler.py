"""AST -> a Python closure ``fn(env, dice) -> value``, with fast paths for whole numbers and dict
paths, and every error located at the node that caused it (origin shifted by the node's column)."""
from __future__ import annotations

from collections.abc import Callable, Mapping

from . import ast
from .dice import DiceSource
from .errors import Location, MprError, define, did_you_mean
from .functions import FUNCTIONS, fractions_loaded
from .normalize import at
from .operators import (BINARY, COMPARE, DIVISION_BY_ZERO, UNARY, div, field,
                        index, truth)
from .limits import MAX_INT_BITS
from .loops import LoopCompiler, scoped

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_NAME = define(
    "MPR140", "unknown name '{name}'{hint}", "'{name}' という名前はありません{hint}")
NO_DICE_SOURCE = define(
    "MPR145", "this expression rolls dice ({text}) but no dice were given: the dice need their "
    "results or a seed",
    "この式はダイス（{text}）を振りますが、ダイスが与えられていません。出目かシードを与えてください")

if TYPE_CHECKING:
    Fn = Callable[[Mapping[str, Any], "DiceSource | None"], Any]
else:
    Fn = Callable  # the precise type is for the type checker only
_NOT_CONSTANT = object()
_SMALL = 2 ** (MAX_INT_BITS // 2)
_LIMIT = 2 ** MAX_INT_BITS  # whole numbers stay strictly between -_LIMIT and _LIMIT


class Compiler(LoopCompiler):
    """Compiles one AST; ``origin`` is where the expression text starts in its file."""

    def __init__(self, origin: Location | None) -> None:
        self.origin = origin

    def loc(self, node: ast.Node | ast.Span) -> Location:
        span = node if isinstance(node, ast.Span) else node.span
        return at(self.origin, span.line, span.column)

    def compile(self, node: ast.Node) -> Fn:
        fn, _ = self._compile(node)
        return fn

    def _compile(self, node: ast.Node) -> tuple[Fn, Any]:
        """(closure, constant value or _NOT_CONSTANT); constants are folded when they evaluate."""
        fn = getattr(self, "_" + type(node).__name__.lower())(node)
        if isinstance(node, (ast.Number, ast.String, ast.Boolean, ast.Null)):
            return fn, node.value if not isinstance(node, ast.Null) else None
        if _constant(node):
            try:
                value = fn({}, None)
            except MprError:
                return fn, _NOT_CONSTANT  # fails at evaluation, where it is reported
            return (lambda env, dice: value), value
        return fn, _NOT_CONSTANT

    # literals
    def _number(self, node: ast.Number) -> Fn:
        value = node.value
        return lambda env, dice: value

    _string = _boolean = _number

    def _null(self, node: ast.Null) -> Fn:
        return lambda env, dice: None

    def _listliteral(self, node: ast.ListLiteral) -> Fn:
        items = [self.compile(i) for i in node.items]
        return lambda env, dice: [f(env, dice) for f in items]

    # names and paths
    def _name(self, node: ast.Name) -> Fn:
        return self._path(node.name, (), node)

    def _path(self, root: str, names: tuple[str, ...], node: ast.Node) -> Fn:
        """``root.a.b``: one closure for the whole path, dict lookups inline."""
        loc = self.loc(node)

        def missing(env: Mapping[str, Any]) -> MprError:
            return MprError(UNKNOWN_NAME, loc, name=root, hint=did_you_mean(root, env.keys()))

        def slow(value: Any) -> Any:
            try:
                for name in names:
                    value = field(value, name)
            except MprError as error:
                raise error.at(loc) from None
            return value

        if not names:
            def lookup(env: Any, dice: Any) -> Any:
                try:
                    return env[root]
                except KeyError:
                    raise missing(env) from None
            return lookup

        def path(env: Any, dice: Any) -> Any:
            try:
                value = env[root]
            except KeyError:
                raise missing(env) from None
            start = value
            try:
                for name in names:
                    value = value[name] if type(value) is dict else field(value, name)
                return value
            except (KeyError, MprError):
                return slow(start)
        return path

    def _attribute(self, node: ast.Attribute) -> Fn:
        names: list[str] = []
        target: ast.Node = node
        while isinstance(target, ast.Attribute):
            names.append(target.name)
            target = target.target
        if isinstance(target, ast.Name):
            return self._path(target.name, tuple(reversed(names)), node)
        inner, name, loc = self.compile(node.target), node.name, self.loc(node)

        def attribute(env: Any, dice: Any) -> Any:
            try:
                return field(inner(env, dice), name)
            except MprError as error:
                raise error.at(loc) from None
        return attribute

    def _index(self, node: ast.Index) -> Fn:
        target, key = self.compile(node.target), self.compile(node.index)
        loc = self.loc(ast.operator_span(node))

        def indexed(env: Any, dice: Any) -> Any:
            try:
                return index(target(env, dice), key(env, dice))
            except MprError as error:
                raise error.at(loc) from None
        return indexed

    # dice
    def _dice(self, node: ast.Dice) -> Fn:
        count, faces, loc, text = node.count, node.faces, self.loc(node), f"{node.count}d{node.faces}"

        def roll(env: Any, dice: Any) -> Any:
            if dice is None:
                raise MprError(NO_DICE_SOURCE, loc, text=text)
            try:
                return sum(dice.roll(faces, count))
            except MprError as error:
                raise error.at(loc) from None
        return roll

    def _d66(self, node: ast.D66) -> Fn:
        loc = self.loc(node)

        def roll(env: Any, dice: Any) -> Any:
            if dice is None:
                raise MprError(NO_DICE_SOURCE, loc, text="d66")
            try:
                tens, units = dice.roll(6, 2)
            except MprError as error:
                raise error.at(loc) from None
            return tens * 10 + units
        return roll

    # operators
    def _unary(self, node: ast.Unary) -> Fn:
        operand, op, loc = self.compile(node.operand), UNARY[node.op], self.loc(node)
        if node.op == "-":
            def negate(env: Any, dice: Any) -> Any:
                value = operand(env, dice)
                if type(value) is int:
                    return -value
                try:
                    return op(value)
                except MprError as error:
                    raise error.at(loc) from None
            return negate

        def unary(env: Any, dice: Any) -> Any:
            try:
                return op(operand(env, dice))
            except MprError as error:
                raise error.at(loc) from None
        return unary

    def _binary(self, node: ast.Binary) -> Fn:
        (left, _), (right, rconst) = self._compile(node.left), self._compile(node.right)
        op, loc, rloc = BINARY[node.op], self.loc(ast.operator_span(node)), self.loc(node.right)

        def slow(a: Any, b: Any) -> Any:
            try:
                return op(a, b)
            except MprError as error:
                raise error.at(rloc if error.code == DIVISION_BY_ZERO else loc) from None

        if node.op in ("+", "-") and type(rconst) is int:
            c = rconst if node.op == "+" else -rconst

            def add_constant(env: Any, dice: Any) -> Any:
                a = left(env, dice)
                if type(a) is int:
                    total = a + c
                    if -_LIMIT < total < _LIMIT:
                        return total
                return slow(a, rconst)
            return add_constant
        if node.op in ("+", "-"):
            minus = node.op == "-"

            def add(env: Any, dice: Any) -> Any:
                a, b = left(env, dice), right(env, dice)
                if type(a) is int and type(b) is int:
                    total = a - b if minus else a + b
                    if -_LIMIT < total < _LIMIT:
                        return total
                return slow(a, b)
            return add
        if node.op == "*":
            def mul(env: Any, dice: Any) -> Any:
                a, b = left(env, dice), right(env, dice)
                if type(a) is int and type(b) is int and -_SMALL < a < _SMALL and -_SMALL < b < _SMALL:
                    return a * b
                return slow(a, b)
            return mul
        if node.op == "//" and type(rconst) is int and rconst:
            def floordiv_constant(env: Any, dice: Any) -> Any:
                a = left(env, dice)
                return a // rconst if type(a) is int else slow(a, rconst)
            return floordiv_constant

        def binary(env: Any, dice: Any) -> Any:
            return slow(left(env, dice), right(env, dice))
        return binary

    def _compare(self, node: ast.Compare) -> Fn:
        operands = [self._compile(o) for o in node.operands]
        tests = [COMPARE[op] for op in node.ops]
        locs = [self.loc(ast.operator_span(node, i)) for i in range(len(tests))]
        loc = locs[0]
        if len(tests) == 1:
            (left, _), (right, rconst) = operands
            test = tests[0]
            if node.ops[0] in ("in", "not in") and isinstance(rconst, list) and all(
                    isinstance(v, str) for v in rconst):
                members, negated = frozenset(rconst), node.ops[0] == "not in"

                def member(env: Any, dice: Any) -> Any:
                    a = left(env, dice)
                    if type(a) is str:
                        return (a in members) != negated
                    try:
                        return test(a, rconst)
                    except MprError as error:
                        raise error.at(loc) from None
                return member

            def compare(env: Any, dice: Any) -> Any:
                a, b = left(env, dice), right(env, dice)
                try:
                    return test(a, b)
                except MprError as error:
                    raise error.at(loc) from None
            return compare
        fns = [f for f, _ in operands]

        def chain(env: Any, dice: Any) -> Any:
            a = fns[0](env, dice)
            for test, fn, where in zip(tests, fns[1:], locs):
                b = fn(env, dice)
                try:
                    if not test(a, b):
                        return False
                except MprError as error:
                    raise error.at(where) from None
                a = b
            return True
        return chain

    def _logical(self, node: ast.Logical) -> Fn:
        left, right = self.compile(node.left), self.compile(node.right)
        lloc, rloc, what = self.loc(node.left), self.loc(node.right), f"'{node.op}'"
        stop = node.op == "or"  # the left value that decides without looking right

        def check(value: Any, loc: Location) -> bool:
            try:
                return truth(value, what)
            except MprError as error:
                raise error.at(loc) from None

        def logical(env: Any, dice: Any) -> Any:
            a = left(env, dice)
            if a is not True and a is not False:
                check(a, lloc)
            if a is stop:
                return stop
            b = right(env, dice)
            return b if b is True or b is False else check(b, rloc)
        return logical

    def _conditional(self, node: ast.Conditional) -> Fn:
        condition, then, otherwise = (self.compile(node.condition), self.compile(node.then),
                                      self.compile(node.otherwise))
        loc = self.loc(node.condition)

        def conditional(env: Any, dice: Any) -> Any:
            c = condition(env, dice)
            if c is True:
                return then(env, dice)
            if c is False:
                return otherwise(env, dice)
            try:
                truth(c, "'if'")
            except MprError as error:
                raise error.at(loc) from None
        return conditional

    def _call(self, node: ast.Call) -> Fn:
        loc = self.loc(node)
        impl = FUNCTIONS[node.name].impl
        if len(node.args) == 1 and isinstance(node.args[0], ast.Comprehension):
            return self.generator_call(node, impl)
        if node.name in ("floor", "ceil") and len(node.args) == 1 and isinstance(
                node.args[0], ast.Binary) and node.args[0].op == "/":
            return self._rounded_division(node, impl)
        args = [self.compile(a) for a in node.args]

        def call(env: Any, dice: Any) -> Any:
            try:
                return impl(*[a(env, dice) for a in args])
            except MprError as error:
                raise error.at(loc) from None
        if len(args) == 1:
            (only,) = args

            def call1(env: Any, dice: Any) -> Any:
                try:
                    return impl(only(env, dice))
                except MprError as error:
                    raise error.at(loc) from None
            return call1
        return call

    def _rounded_division(self, node: ast.Call, impl: Callable[[Any], Any]) -> Fn:
        """floor(a / b) and ceil(a / b) on whole numbers without building a Fraction."""
        division = node.args[0]
        assert isinstance(division, ast.Binary)  # _call sends only ``floor(a / b)``, ``ceil(a / b)``
        left, right = self.compile(division.left), self.compile(division.right)
        loc, dloc, rloc = self.loc(node), self.loc(division), self.loc(division.right)
        up = node.name == "ceil"

        def rounded(env: Any, dice: Any) -> Any:
            a, b = left(env, dice), right(env, dice)
            if type(a) is int and type(b) is int and b:
                return -(-a // b) if up else a // b
            try:
                value = div(a, b)
            except MprError as error:
                raise error.at(rloc if error.code == DIVISION_BY_ZERO else dloc) from None
            try:
                return impl(value)
            except MprError as error:
                raise error.at(loc) from None
        return rounded


def _constant(node: ast.Node) -> bool:
    """True when the node reads no name and rolls no dice (so it can be folded)."""
    return not any(isinstance(n, (ast.Name, ast.Local, ast.Dice, ast.D66)) for n in ast.walk(node))


def compile_ast(node: ast.Node, origin: Location | None = None) -> Fn:
    """The closure evaluating ``node``: ``fn(env, dice)`` (``env`` is only read)."""
    fractions_loaded()  # the number checks skip a look-up from now on if fractions is loaded
    fn = Compiler(origin).compile(node)
    return scoped(fn) if ast.binders(node) else fn

