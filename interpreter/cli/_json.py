"""JSON text as ``--format json`` prints it, ``json.dumps(jsonable(data), ensure_ascii=False,
indent=2)``, made with a few operations per value: with an indent, ``json`` encodes in Python, a
generator per list and mapping and several calls per value (the 200,000 rows of ``prob`` of a
table of 100,000 rows). Each mapping of plain values is written by one loop, each text by the
encoder ``json`` itself uses (written in C)."""
from __future__ import annotations

from json.encoder import encode_basestring  # json's own text encoder (in C)

from rules_dsl.plain import jsonable

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def indented(data: Any) -> str:
    """``json.dumps(jsonable(data), ensure_ascii=False, indent=2)``."""
    parts: list[str] = []
    _value(data, "\n", parts.append)
    return "".join(parts)


def _float(value: float) -> str:
    """A float as ``json`` writes it (``NaN`` and ``Infinity`` as it allows them by default)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str | None:
    """The text of a value that is neither a mapping nor a list, as ``json`` writes it; None for
    a mapping, a list or anything ``jsonable`` would change."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _value(value: Any, newline: str, out: Callable[[str], Any]) -> None:
    """Write ``value`` whose first line is already indented; ``newline`` starts its next lines."""
    text = _scalar(value)
    if text is not None:
        out(text)
    elif isinstance(value, dict):
        _mapping(value, newline, out)
    elif isinstance(value, (list, tuple)):
        if not value:
            out("[]")
            return
        inner = newline + "  "
        out("[")
        for i, item in enumerate(value):
            out(inner if i == 0 else "," + inner)
            _value(item, inner, out)
        out(newline + "]")
    else:  # a fraction, an object with to_json, anything else as its text (jsonable)
        _value(jsonable(value), newline, out)


def _mapping(value: dict[Any, Any], newline: str, out: Callable[[str], Any]) -> None:
    if not value:
        out("{}")
        return
    inner = newline + "  "
    lead = "{" + inner
    pending: list[str] = []  # the plain values written so far, as one text
    for key, item in value.items():
        name = encode_basestring(key if isinstance(key, str) else str(key))
        text = _scalar(item)
        if text is not None:
            pending.append(f"{lead}{name}: {text}")
        else:
            out("".join(pending) + f"{lead}{name}: ")
            pending = []
            _value(item, inner, out)
        lead = "," + inner
    out("".join(pending) + newline + "}")
