"""Expression values as plain JSON data (exact fractions as ``"7/2"`` text), in a module that
imports nothing heavy (not even ``fractions``), so printing a value costs no start-up."""
from __future__ import annotations

import sys
from itertools import repeat
from math import gcd  # math is built in (and loaded already by the expression functions)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from fractions import Fraction
    from typing import Any


def jsonable(value: Any) -> Any:
    """Plain JSON data: exact fractions as ``"7/2"`` strings, integral fractions as integers."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    fractions = sys.modules.get("fractions")  # no Fraction exists before the module is loaded
    if fractions is not None and isinstance(value, fractions.Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    return str(value)


def fraction_text(p: Fraction) -> str:
    """A probability as a string: ``"1/36"``, ``"1"``, ``"0"``."""
    # start-up: fractions loads here only if no probability did it before (they are Fractions)
    import fractions

    p = fractions.Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def ratio_text(numerator: int, denominator: int) -> str:
    """``fraction_text(Fraction(numerator, denominator))`` for whole numbers (a positive
    ``denominator``), without loading ``fractions``: ``ratio_text(39, 400)`` is ``"39/400"``,
    ``ratio_text(2, 4)`` is ``"1/2"``, ``ratio_text(3, 3)`` is ``"1"``."""
    numerator, denominator = reduced(numerator, denominator)
    return str(numerator) if denominator == 1 else f"{numerator}/{denominator}"


def reduced(numerator: int, denominator: int) -> tuple[int, int]:
    """The numerator and denominator of ``Fraction(numerator, denominator)`` (a positive
    ``denominator``), in lowest terms, as whole numbers."""
    divisor = gcd(numerator, denominator)
    return numerator // divisor, denominator // divisor


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def json_text(value: Any) -> str | None:
    """``json.dumps(value, ensure_ascii=False)`` for plain data of texts, whole numbers, true,
    false, null, lists and mappings with text keys, without loading json; None for anything else
    (a float, another type), which the caller gives to json."""
    kind = type(value)
    if kind is float:
        return None  # a float is json's to write (json_indented writes the finite ones)
    if kind is not list and kind is not dict:
        return _scalar(value)
    if kind is list:
        items = [json_text(item) for item in value]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if kind is dict:
        if not all(type(key) is str for key in value):
            return None
        pairs = [(json_text(key), json_text(item)) for key, item in value.items()]
        if any(item is None for _, item in pairs):
            return None
        return "{" + ", ".join(f"{key}: {item}" for key, item in pairs) + "}"
    return None


def json_indented(value: Any, step: str = "  ") -> str | None:
    """``json.dumps(value, ensure_ascii=False, indent=len(step))`` for the plain data ``json_text``
    writes, and finite floats, without loading json; None for anything else (a float that is not
    finite, a key that is not a text, a tuple, another type, nesting past ``_MAX_JSON_DEPTH``),
    which the caller gives to json. The values of a mapping or a list that are neither are written
    as one text with their keys (a table of 100,000 rows of plain values: a few operations a value)."""
    out: list[str] = []
    return "".join(out) if _indented(value, out.append, "\n", step, 0, {}) else None


_MAX_JSON_DEPTH = 500
_NOT_FINITE = (float("inf"), float("-inf"))


def _scalar(value: Any) -> str | None:
    """The JSON text of a text, whole number, finite float, true, false or null; None for
    anything else (a mapping, a list, a value left to json)."""
    kind = type(value)
    if kind is str:
        if '"' not in value and "\\" not in value and value.isprintable():
            return f'"{value}"'
        return '"' + "".join(_JSON_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c)
                             for c in value) + '"'
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is float and value == value and value not in _NOT_FINITE:
        return float.__repr__(value)
    return None


def _indented(value: Any, out: Callable[[str], Any], newline: str, step: str, depth: int,
              names: dict[str, str]) -> bool:
    """Write ``value`` (its first line already indented; ``newline`` starts the next ones);
    ``names`` keeps each key's text made once (every row of a table repeats its keys)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        text = _scalar(value)
        if text is None:
            return False
        out(text)
        return True
    if not value:
        out("{}" if kind is dict else "[]")
        return True
    if depth >= _MAX_JSON_DEPTH:
        return False
    inner = newline + step
    lead = ("{" if kind is dict else "[") + inner
    pending: list[str] = []  # what is written since the last nested mapping or list, in parts
    add = pending.append
    mapping = kind is dict
    for key, item in value.items() if mapping else zip(repeat(""), value):
        name = names.get(key) if mapping else key  # a list's items have no name: ""
        if name is None:
            if type(key) is not str:
                return False
            name = names[key] = f"{_scalar(key)}: "
        text = _scalar(item)
        if text is not None:
            add(lead + name + text)
        elif type(item) is dict or type(item) is list:
            add(lead + name)
            out("".join(pending))
            pending.clear()
            if not _indented(item, out, inner, step, depth + 1, names):
                return False
        else:
            return False
        lead = "," + inner
    add(newline)
    add("}" if kind is dict else "]")
    out("".join(pending))
    return True
