"""The built-in functions of the expression language and the value kinds they work on.

Numbers are ints and exact ``Fraction``s (a Fraction that is a whole number is returned as an int);
``true``/``false`` are not numbers. ``round`` rounds halves away from zero (四捨五入: 2.5 -> 3,
-2.5 -> -3). Every function works exactly: no floating point anywhere.

Module ``fractions`` (with ``decimal`` and ``numbers``, about a quarter of a bare interpreter's
start-up) loads with the first non-whole number, not with this module: ``fraction()`` gives the
class, and ``is_fraction``/``is_number``/``simplest`` recognise a Fraction without loading it.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping

from .errors import MprError, define
from .frozen import Frozen
from .limits import MAX_INT_BITS, MAX_LIST_LENGTH, MAX_STRING_LENGTH
from .words import define_words, vocabulary

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

BAD_ARGUMENT = define(
    "MPR170", "{function}() takes {wanted}, got {kind}",
    "{function}() の引数は{wanted_ja}です（{kind_ja}が渡されました）")
EMPTY_ARGUMENT = define(
    "MPR171", "{function}() of an empty list has no value",
    "空のリストに {function}() は使えません")
CLAMP_BOUNDS = define(
    "MPR172", "clamp(): the lower bound {low} is greater than the upper bound {high}",
    "clamp(): 下限 {low} が上限 {high} より大きくなっています")

TOO_LONG_RESULT = define(
    "MPR126", "{function}() would give more than {limit} elements or characters",
    "{function}() の結果が上限 {limit}（要素数または文字数）を超えます")

RESULT_TOO_LARGE = define(
    "MPR129", "the result of {function}() would be larger than {limit} bits",
    "{function}() の結果が {limit} ビットを超えてしまいます")

KINDS = define_words(
    "expression.kind",
    {"number": "number", "string": "string", "boolean": "boolean", "null": "null",
     "list": "list", "mapping": "mapping", "value": "value"},
    {"number": "数", "string": "文字列", "boolean": "真偽値", "null": "null",
     "list": "リスト", "mapping": "マップ", "value": "値"})
KIND_JA = vocabulary(KINDS, "ja")
"""The Japanese name of each kind of value (messages show the English name as it is)."""


class _NotLoaded:
    """Stands for ``Fraction`` until module ``fractions`` is found loaded: no value is of this type."""

    __slots__ = ()


# Why these checks are right whatever the import order: a Fraction can only exist once module
# ``fractions`` is in sys.modules, whoever imported it (a caller's parameter, the probability code,
# a YAML float read through ``exact``). _FRACTION is the class Fraction once a look here found the
# module (until then _NotLoaded, of which no value is an instance), and the hot checks compare with
# it directly (``type(v) is _FRACTION``: as fast as the name Fraction was). While _UNSEEN (no look
# found it yet), a check about to answer "not a Fraction" for a type that could be one looks first
# (``_late``): a real Fraction is never rejected because this module did not load ``fractions``.
# Once found (``compile_ast`` looks each time it compiles), that costs one test of a boolean; ints
# are tested first and never pay it. Chosen over a table of types extended when ``fractions``
# loads: knowing when needs an import hook, and a table costs a dictionary look-up on every check.
_FRACTION: type = _NotLoaded
_UNSEEN = True
_PLAIN = frozenset((str, bool, list, tuple, dict, type(None)))  # never a Fraction: no look-up


def fractions_loaded() -> bool:
    """Whether ``fractions`` is loaded now, remembering its Fraction when it is: after that the
    checks here skip their look-up (``compile_ast`` asks, so a process that loaded ``fractions``
    before compiling never pays it)."""
    global _FRACTION, _UNSEEN
    module = sys.modules.get("fractions")
    if module is None:
        return False
    _FRACTION, _UNSEEN = module.Fraction, False
    return True


def _late(t: type) -> bool:
    """Whether ``t`` is Fraction, asked while ``_UNSEEN``."""
    return fractions_loaded() and t is _FRACTION


def fraction() -> type[Fraction]:
    """The class ``Fraction``, loading module ``fractions`` the first time a non-whole number is made."""
    if _UNSEEN:
        # start-up: fractions (with decimal and numbers) loads with the first non-whole number
        import fractions  # noqa: F401 - fractions_loaded() finds it in sys.modules

        fractions_loaded()
    known: type[Fraction] = _FRACTION
    return known


def is_fraction(value: object) -> bool:
    """``isinstance(value, Fraction)``, without loading ``fractions`` (no Fraction exists before)."""
    return isinstance(value, _FRACTION) or (_UNSEEN and fractions_loaded() and isinstance(value, _FRACTION))


def kind(value: Any) -> str:
    """The language's name for the kind of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)) or is_fraction(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__


def is_number(value: Any) -> bool:
    """An int, a Fraction or a float (exactly those types: not ``true``/``false``)."""
    return type(value) is int or type(value) is _FRACTION or type(value) is float or (
        _UNSEEN and type(value) not in _PLAIN and _late(type(value)))


def exact(value: Any) -> int | Fraction:
    """An int or Fraction for a number (a YAML float is read as its decimal text: 0.1 is 1/10)."""
    if type(value) is float:
        made: Fraction = (fraction() if _UNSEEN else _FRACTION)(repr(value))
        return made.numerator if made.denominator == 1 else made
    number: int | Fraction = value
    return number


def simplest(value: int | Fraction) -> int | Fraction:
    """A whole Fraction as an int; anything else unchanged."""
    if type(value) is _FRACTION:
        return value.numerator if value.denominator == 1 else value
    if _UNSEEN and type(value) is not int and _late(type(value)):
        return simplest(value)
    return value


def quotient(x: int | Fraction, y: int | Fraction) -> int | Fraction:
    """``x / y`` exactly (``y`` is not 0), an int when it is whole."""
    made: Fraction = (fraction() if _UNSEEN else _FRACTION)(x) / y
    return made.numerator if made.denominator == 1 else made


def _fail(function: str, wanted: str, wanted_ja: str, value: Any) -> MprError:
    k = kind(value)
    return MprError(BAD_ARGUMENT, function=function, wanted=wanted, wanted_ja=wanted_ja,
                    kind=k, kind_ja=KIND_JA.get(k, k))


def _number(function: str, value: Any) -> int | Fraction:
    if not is_number(value):
        raise _fail(function, "a number", "数", value)
    return exact(value)


def _numbers(function: str, values: Any) -> list[int | Fraction]:
    if not isinstance(values, (list, tuple)):
        raise _fail(function, "a list of numbers", "数のリスト", values)
    return [_number(function, v) for v in values]


def _booleans(function: str, values: Any) -> list[bool]:
    if not isinstance(values, (list, tuple)):
        raise _fail(function, "a list of true/false", "真偽値のリスト", values)
    for v in values:
        if type(v) is not bool:
            raise _fail(function, "a list of true/false", "真偽値のリスト", v)
    return list(values)


def fn_floor(x: Any) -> int:
    return math.floor(_number("floor", x))


def fn_ceil(x: Any) -> int:
    value: int = math.ceil(_number("ceil", x))
    return value


def fn_round(x: Any) -> int:
    value = _number("round", x)
    if type(value) is int:
        return value
    # floor(|p/q| + 1/2), with the sign of p/q put back: halves away from zero
    magnitude = (2 * abs(value.numerator) + value.denominator) // (2 * value.denominator)
    return magnitude if value >= 0 else -magnitude


def fn_abs(x: Any) -> int | Fraction:
    value = _number("abs", x)
    return value if value >= 0 else -value


def _extreme(function: str, args: tuple[Any, ...], pick: Callable[..., Any]) -> int | Fraction:
    if len(args) > 1 and all(type(a) is int for a in args):
        whole: int = pick(args)
        return whole
    values = _numbers(function, args[0]) if len(args) == 1 else [_number(function, a) for a in args]
    if not values:
        raise MprError(EMPTY_ARGUMENT, function=function)
    return simplest(pick(values))


def fn_min(*args: Any) -> int | Fraction:
    return _extreme("min", args, min)


def fn_max(*args: Any) -> int | Fraction:
    return _extreme("max", args, max)


def fn_clamp(x: Any, low: Any, high: Any) -> int | Fraction:
    value, lo, hi = _number("clamp", x), _number("clamp", low), _number("clamp", high)
    if lo > hi:
        raise MprError(CLAMP_BOUNDS, low=str(lo), high=str(hi))
    return simplest(lo if value < lo else hi if value > hi else value)


def fn_sum(xs: Any) -> int | Fraction:
    total: int | Fraction = 0
    if type(xs) is list:
        for v in xs:
            if type(v) is not int:
                break
            total += v
        else:
            return _within_bits(total, "sum")
    total = 0
    for v in _numbers("sum", xs):  # checked at every step: exact fractions can grow fast
        total = _within_bits(total + v, "sum")
    return simplest(total)


def _within_bits(value: int | Fraction, function: str) -> int | Fraction:
    bits = value.bit_length() if type(value) is int else max(
        value.numerator.bit_length(), value.denominator.bit_length())
    if bits > MAX_INT_BITS:
        raise MprError(RESULT_TOO_LARGE, function=function, limit=MAX_INT_BITS)
    return value


def fn_count(xs: Any, *value: Any) -> int:
    if value:
        if not isinstance(xs, (list, tuple)):
            raise _fail("count", "a list", "リスト", xs)
        return sum(1 for v in xs if v == value[0])
    return sum(_booleans("count", xs))


def fn_len(x: Any) -> int:
    if isinstance(x, (str, list, tuple, Mapping)):
        return len(x)
    raise _fail("len", "a list, a string or a mapping", "リスト・文字列・マップ", x)


def _list(function: str, xs: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(xs, (list, tuple)):
        raise _fail(function, "a list", "リスト", xs)
    return xs


def _key(value: Any) -> Any:
    """A hashable stand-in for a value, equal exactly when the values are equal."""
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_key(v) for v in value))
    if isinstance(value, Mapping):
        return ("mapping", frozenset((k, _key(v)) for k, v in value.items()))
    return value


def fn_unique(xs: Any) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in _list("unique", xs):
        k = _key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def fn_duplicates(xs: Any) -> list[Any]:
    seen: set[Any] = set()
    reported: set[Any] = set()
    out = []
    for v in _list("duplicates", xs):
        k = _key(v)
        if k in seen and k not in reported:
            reported.add(k)
            out.append(v)
        seen.add(k)
    return out


def fn_sorted(xs: Any) -> list[Any]:
    values = _list("sorted", xs)
    if all(is_number(v) for v in values):
        return sorted(values, key=exact)
    if all(isinstance(v, str) for v in values):
        return sorted(values)
    raise _fail("sorted", "a list of numbers or a list of strings", "数のリストか文字列のリスト", xs)


def fn_join(xs: Any, separator: Any) -> str:
    if not isinstance(separator, str):
        raise _fail("join", "a string as separator", "区切りの文字列", separator)
    parts = []
    for v in _list("join", xs):
        if isinstance(v, str):
            parts.append(v)
        elif is_number(v):
            parts.append(str(simplest(exact(v))))
        else:
            raise _fail("join", "a list of strings or numbers", "文字列か数のリスト", v)
    text = separator.join(parts)
    if len(text) > MAX_STRING_LENGTH:
        raise MprError(TOO_LONG_RESULT, function="join", limit=MAX_STRING_LENGTH)
    return text


def _mapping(function: str, m: Any) -> Mapping[Any, Any]:
    if not isinstance(m, Mapping):
        raise _fail(function, "a mapping", "マップ", m)
    return m


def fn_keys(m: Any) -> list[Any]:
    return list(_mapping("keys", m).keys())


def fn_values(m: Any) -> list[Any]:
    return list(_mapping("values", m).values())


def fn_range(*args: Any) -> list[int]:
    for a in args:
        if type(a) is not int:
            raise _fail("range", "whole numbers", "整数", a)
    start, stop = (0, args[0]) if len(args) == 1 else args
    if stop - start > MAX_LIST_LENGTH:
        raise MprError(TOO_LONG_RESULT, function="range", limit=MAX_LIST_LENGTH)
    return list(range(start, stop))


def fn_any(xs: Any) -> bool:
    return any(_booleans("any", xs))


def fn_all(xs: Any) -> bool:
    return all(_booleans("all", xs))


class Function(Frozen):
    """A built-in: its arity (``max_args`` None: any number) and what each argument must be
    (``args``: one kind per position, the last repeating; ``"value"`` for anything)."""

    __slots__ = ("name", "impl", "min_args", "max_args", "args", "doc_en", "doc_ja", "returns")
    _defaults = {"returns": "number"}
    name: str
    impl: Callable[..., Any]
    min_args: int
    max_args: int | None
    args: tuple[str, ...]
    doc_en: str
    doc_ja: str
    returns: str

    def arity(self) -> str:
        if self.max_args == self.min_args:
            return str(self.min_args)
        if self.max_args is None:
            return f"{self.min_args}+"
        return f"{self.min_args}-{self.max_args}"


FUNCTIONS: dict[str, Function] = {f.name: f for f in (
    Function("floor", fn_floor, 1, 1, ("number",), "round down to a whole number: floor(7/2) = 3",
             "小数点以下切り捨て: floor(7/2) = 3"),
    Function("ceil", fn_ceil, 1, 1, ("number",), "round up to a whole number: ceil(7/2) = 4",
             "小数点以下切り上げ: ceil(7/2) = 4"),
    Function("round", fn_round, 1, 1, ("number",),
             "round to the nearest whole number, halves away from zero: round(5/2) = 3",
             "四捨五入（0.5 は 0 から遠い方へ）: round(5/2) = 3"),
    Function("abs", fn_abs, 1, 1, ("number",), "absolute value: abs(-3) = 3", "絶対値: abs(-3) = 3"),
    Function("min", fn_min, 1, None, ("value", "number"),
             "smallest of the arguments, or of one list: min(3, x), min(xs)",
             "引数（または1つのリスト）の最小値: min(3, x), min(xs)"),
    Function("max", fn_max, 1, None, ("value", "number"),
             "largest of the arguments, or of one list: max(3, x), max(xs)",
             "引数（または1つのリスト）の最大値: max(3, x), max(xs)"),
    Function("clamp", fn_clamp, 3, 3, ("number", "number", "number"),
             "x kept between low and high: clamp(2d6, 3, 10)", "x を low 以上 high 以下に収める: clamp(2d6, 3, 10)"),
    Function("sum", fn_sum, 1, 1, ("list",), "total of a list of numbers (0 if empty): sum(parts.price)",
             "数のリストの合計（空なら 0）: sum(parts.price)"),
    Function("count", fn_count, 1, 2, ("list", "value"),
             "count(xs): how many are true; count(xs, v): how many equal v",
             "count(xs): true の個数、count(xs, v): v に等しい要素の個数"),
    Function("len", fn_len, 1, 1, ("value",), "length of a list, string or mapping: len(parts)",
             "リスト・文字列・マップの長さ: len(parts)"),
    Function("any", fn_any, 1, 1, ("list",), "true if any element of a list of true/false is true",
             "真偽値のリストに true が1つでもあれば true", "boolean"),
    Function("all", fn_all, 1, 1, ("list",), "true if every element of a list of true/false is true",
             "真偽値のリストがすべて true なら true（空なら true）", "boolean"),
    Function("unique", fn_unique, 1, 1, ("list",),
             "the list without repeats, first occurrences in order: unique([2, 1, 2]) = [2, 1]",
             "重複を除いたリスト（最初に出た順）: unique([2, 1, 2]) = [2, 1]", "list"),
    Function("duplicates", fn_duplicates, 1, 1, ("list",),
             "the values that occur more than once, each once: duplicates([2, 1, 2]) = [2]",
             "2回以上現れる値（各1回）: duplicates([2, 1, 2]) = [2]", "list"),
    Function("sorted", fn_sorted, 1, 1, ("list",), "numbers or strings in ascending order",
             "数または文字列を昇順に並べたリスト", "list"),
    Function("join", fn_join, 2, 2, ("list", "string"),
             "strings (and numbers) joined by a separator: join(['a', 'b'], '・') = 'a・b'",
             "文字列（と数）を区切りでつなぐ: join(['a', 'b'], '・') = 'a・b'", "string"),
    Function("keys", fn_keys, 1, 1, ("mapping",), "the keys of a mapping, as a list",
             "マップのキーのリスト", "list"),
    Function("values", fn_values, 1, 1, ("mapping",), "the values of a mapping, as a list",
             "マップの値のリスト", "list"),
    Function("range", fn_range, 1, 2, ("number",),
             "whole numbers from 0 (or a) up to b, b excluded: range(3) = [0, 1, 2]",
             "0（または a）から b の手前までの整数: range(3) = [0, 1, 2]", "list"),
)}
