"""What each operator of the language does to values, exactly and within the size limits.

Shared by the compiler and ``rules_dsl.prob`` (which applies the same functions to the outcomes of
distributions). Errors are raised without a location; the caller locates them at the node.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Mapping

from .errors import MprError, define, did_you_mean
from .functions import KIND_JA, exact, fraction, is_number, kind, quotient, simplest
from .limits import MAX_EXPONENT, MAX_INT_BITS, MAX_LIST_LENGTH, MAX_STRING_LENGTH

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any, TypeVar

DIVISION_BY_ZERO = define(
    "MPR141", "division by zero ({op} by 0)", "0 で割っています（{op} の右側が 0）")
TYPE_MISMATCH = define(
    "MPR142", "'{op}' cannot be used on {kinds}", "'{op}' は{kinds_ja}には使えません")
NUMBER_TOO_LARGE = define(
    "MPR143", "the result of '{op}' would be larger than {limit} bits",
    "'{op}' の結果が {limit} ビットを超えてしまいます")
EXPONENT_TOO_LARGE = define(
    "MPR144", "the exponent {exponent} is too large (at most {limit})",
    "指数 {exponent} が大きすぎます（上限 {limit}）")
BAD_INDEX = define(
    "MPR146", "index {index} is outside the list (it has {length} elements)",
    "添字 {index} がリストの範囲外です（要素は {length} 個）")
NO_FIELD = define(
    "MPR147", "there is no field '{name}' here{hint}", "ここにフィールド '{name}' はありません{hint}")
NOT_BOOLEAN = define(
    "MPR148", "{what} needs true or false, got {kind}", "{what} には true か false が必要です（{kind_ja}でした）")
TOO_LONG = define(
    "MPR149", "the result of '{op}' would be longer than {limit}",
    "'{op}' の結果が長すぎます（上限 {limit}）")

_HALF_BITS = 2 ** (MAX_INT_BITS // 2)


def mismatch(op: str, *values: Any) -> MprError:
    kinds = [kind(v) for v in values]
    return MprError(TYPE_MISMATCH, op=op, kinds=" and ".join(kinds),
                    kinds_ja="と".join(KIND_JA.get(k, k) for k in kinds))


if TYPE_CHECKING:
    Number = TypeVar("Number", bound=int | Fraction)


def _bits(value: int | Fraction) -> int:
    if type(value) is int:
        return value.bit_length()
    return max(value.numerator.bit_length(), value.denominator.bit_length())


def bounded(value: Number, op: str) -> Number:
    """``value`` if it is within MAX_INT_BITS (numerator and denominator), else the coded error:
    every number an expression makes is checked, so none grows past the bound."""
    if _bits(value) > MAX_INT_BITS:
        raise MprError(NUMBER_TOO_LARGE, op=op, limit=MAX_INT_BITS)
    return value


def _numbers(op: str, a: Any, b: Any) -> tuple[int | Fraction, int | Fraction]:
    if is_number(a) and is_number(b):
        return exact(a), exact(b)
    raise mismatch(op, a, b)


def _bounded_sequence(op: str, value: Any) -> Any:
    limit = MAX_STRING_LENGTH if isinstance(value, str) else MAX_LIST_LENGTH
    if len(value) > limit:
        raise MprError(TOO_LONG, op=op, limit=limit)
    return value


def add(a: Any, b: Any) -> Any:
    if is_number(a) and is_number(b):
        return bounded(simplest(exact(a) + exact(b)), "+")
    if isinstance(a, str) and isinstance(b, str):
        return _bounded_sequence("+", a + b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return _bounded_sequence("+", [*a, *b])
    raise mismatch("+", a, b)


def sub(a: Any, b: Any) -> int | Fraction:
    x, y = _numbers("-", a, b)
    return bounded(simplest(x - y), "-")


def mul(a: Any, b: Any) -> int | Fraction:
    x, y = _numbers("*", a, b)
    if _bits(x) + _bits(y) > MAX_INT_BITS:
        raise MprError(NUMBER_TOO_LARGE, op="*", limit=MAX_INT_BITS)
    return simplest(x * y)


def div(a: Any, b: Any) -> int | Fraction:
    x, y = _numbers("/", a, b)
    if y == 0:
        raise MprError(DIVISION_BY_ZERO, op="/")
    if type(x) is int and type(y) is int and x % y == 0:
        return bounded(x // y, "/")
    return bounded(quotient(x, y), "/")


def floordiv(a: Any, b: Any) -> int:
    x, y = _numbers("//", a, b)
    if y == 0:
        raise MprError(DIVISION_BY_ZERO, op="//")
    return bounded(x // y, "//")


def mod(a: Any, b: Any) -> int | Fraction:
    x, y = _numbers("%", a, b)
    if y == 0:
        raise MprError(DIVISION_BY_ZERO, op="%")
    return bounded(simplest(x % y), "%")


def power(a: Any, b: Any) -> int | Fraction:
    x, y = _numbers("**", a, b)
    if type(y) is not int:
        raise mismatch("**", a, b)
    if abs(y) > MAX_EXPONENT:
        raise MprError(EXPONENT_TOO_LARGE, exponent=y, limit=MAX_EXPONENT)
    if (_bits(x) - 1) * abs(y) + 1 > MAX_INT_BITS:
        raise MprError(NUMBER_TOO_LARGE, op="**", limit=MAX_INT_BITS)
    if y < 0:
        if x == 0:
            raise MprError(DIVISION_BY_ZERO, op="**")
        make = fraction()
        result = make(1) / make(x) ** -y
    else:
        result = x ** y
    if _bits(result) > MAX_INT_BITS:
        raise MprError(NUMBER_TOO_LARGE, op="**", limit=MAX_INT_BITS)
    return simplest(result)


def negate(a: Any) -> int | Fraction:
    if not is_number(a):
        raise mismatch("-", a)
    return -exact(a)


def positive(a: Any) -> int | Fraction:
    if not is_number(a):
        raise mismatch("+", a)
    return exact(a)


def truth(value: Any, what: str) -> bool:
    """``value`` if it is a boolean; else the error naming ``what`` needed it."""
    if type(value) is bool:
        return value
    k = kind(value)
    raise MprError(NOT_BOOLEAN, what=what, kind=k, kind_ja=KIND_JA.get(k, k))


def logical_not(a: Any) -> bool:
    return not truth(a, "'not'")


def _ordered(op: str, compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def ordered(a: Any, b: Any) -> bool:
        if is_number(a) and is_number(b):
            return compare(exact(a), exact(b))
        if isinstance(a, str) and isinstance(b, str):
            return compare(a, b)
        raise mismatch(op, a, b)
    return ordered


def contains(a: Any, b: Any) -> bool:
    if isinstance(b, (list, tuple)):
        return a in b
    if isinstance(b, str) and isinstance(a, str):
        return a in b
    if isinstance(b, Mapping) and isinstance(a, str):
        return a in b
    raise mismatch("in", a, b)


BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": add, "-": sub, "*": mul, "/": div, "//": floordiv, "%": mod, "**": power}
UNARY: dict[str, Callable[[Any], Any]] = {"-": negate, "+": positive, "not": logical_not}
COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne,
    "<": _ordered("<", operator.lt), "<=": _ordered("<=", operator.le),
    ">": _ordered(">", operator.gt), ">=": _ordered(">=", operator.ge),
    "in": contains, "not in": lambda a, b: not contains(a, b)}


def field(value: Any, name: str) -> Any:
    """``value.name``: a mapping's key, projected over a list, null for null."""
    if type(value) is list:
        try:  # exact for lists of mappings; anything else takes the general way below
            return [item[name] for item in value]
        except (KeyError, TypeError, IndexError):
            return [field(item, name) for item in value]
    if isinstance(value, Mapping):
        try:
            return value[name]
        except KeyError:
            raise MprError(NO_FIELD, name=name, hint=did_you_mean(name, value.keys())) from None
    if isinstance(value, (list, tuple)):
        return [field(item, name) for item in value]
    if value is None:
        return None
    raise mismatch(".", value)


def index(value: Any, key: Any) -> Any:
    """``value[key]``: a list or string by whole-number position (negative from the end),
    a mapping by key, null for null."""
    if value is None:
        return None
    if isinstance(value, (list, tuple, str)):
        if type(key) is not int:
            raise mismatch("[]", value, key)
        if not -len(value) <= key < len(value):
            raise MprError(BAD_INDEX, index=key, length=len(value))
        return value[key]
    if isinstance(value, Mapping):
        if not isinstance(key, str):
            raise mismatch("[]", value, key)
        return field(value, key)
    raise mismatch("[]", value, key)
