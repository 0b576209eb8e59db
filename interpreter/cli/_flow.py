"""A value of a run's result on one line, as YAML in flow style, exactly as
``yaml_readings.dump(value, allow_unicode=True, default_flow_style=True, width=10**6)`` writes it
(without its document end), for the values whose writing is sure without PyYAML: whole numbers,
finite floats (``repr`` in lower case, ``.0`` put before an exponent that has no point, as
PyYAML's representer writes them), true, false, null, texts that PyYAML writes plain or in single
quotes, and lists and mappings of those. ``one_line`` returns None for anything else (a float
that is not finite, a text with a line break or a
character PyYAML escapes, a text a reader might take for another type), which the caller gives to
PyYAML; so the output never depends on which way it was written (``tests/cli/test_flow.py``
compares the two on every bundled example and on generated values).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_FIRST_INDICATORS = "#,[]{}&*!|>'\"%@`"
_FLOW_INDICATORS = ",?[]{}"
# A text starting with one of these may be read as a number, a date, null, a boolean, a merge
# or a value key by some reader: PyYAML decides (the words below are the letters' only such texts).
_TYPED_FIRST = "-+.0123456789~<="
_TYPED_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
_MAX_KEY = 100  # PyYAML writes a longer key as a complex key ("? ")


def _printable(ch: str) -> bool:
    """A character PyYAML writes as it is with ``allow_unicode`` (no escape, not a line break)."""
    return ("\x20" <= ch <= "\x7e" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
            or "\U00010000" <= ch < "\U0010ffff") and ch not in "\ufeff\u2028\u2029"


def _text(text: str, flow: bool) -> str | None:
    """A text as PyYAML writes it in a flow collection (``flow``) or as the whole document."""
    if not text:
        return "''"
    if not all(_printable(ch) for ch in text):
        return None
    plain = text[0] != " " and text[-1] != " "
    first = text[0]
    if first in _FIRST_INDICATORS:
        plain = False
    elif first in "?:" and (flow or len(text) == 1 or text[1] == " "):
        plain = False
    elif first == "-" and (len(text) == 1 or text[1] == " "):
        plain = False
    for i, ch in enumerate(text[1:], 1):
        if flow and (ch in _FLOW_INDICATORS or ch == ":"):
            plain = False
        elif ch == ":" and (i + 1 == len(text) or text[i + 1] == " "):
            plain = False
        elif ch == "#" and text[i - 1] == " ":
            plain = False
    if plain:
        if _ratio(text):
            return text  # an exact chance (3/4): no reader takes it for a number
        if first in _TYPED_FIRST or text.lower() in _TYPED_WORDS:
            return None  # a reader may take it for another type: PyYAML quotes it or not
        return text
    return "'" + text.replace("'", "''") + "'"


def _ratio(text: str) -> bool:
    """Whether ``text`` is ASCII digits, one slash, ASCII digits (``3/4``, how a chance's
    ``fraction`` is written): a text that no YAML 1.1 or 1.2 resolver reads as anything but a text."""
    numerator, slash, denominator = text.partition("/")
    return bool(slash) and numerator.isascii() and numerator.isdigit() and denominator.isascii() \
        and denominator.isdigit()


def _item(value: Any, depth: int) -> str | None:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return _text(value, True)
    if type(value) is float:
        return _float(value)
    if depth > 32:
        return None
    if type(value) is list:
        parts = [_item(v, depth + 1) for v in value]
        return None if None in parts else "[" + ", ".join(parts) + "]"  # type: ignore[arg-type]
    if type(value) is dict:
        pairs = []
        for key, item in value.items():
            if type(key) is not str or not key or len(key) > _MAX_KEY:  # "? KEY :" in PyYAML
                return None
            shown_key, shown = _text(key, True), _item(item, depth + 1)
            if shown_key is None or shown is None:
                return None
            pairs.append(f"{shown_key}: {shown}")
        return "{" + ", ".join(pairs) + "}"
    return None


def _float(value: float) -> str | None:
    """A finite float as PyYAML's representer writes it (a chance's ``float``: ``0.75``)."""
    if value != value or value in (float("inf"), float("-inf")):
        return None  # .nan, .inf: left to PyYAML
    text = repr(value).lower()
    if "." not in text and "e" in text:  # 1e+17 is no YAML float: 1.0e+17
        text = text.replace("e", ".0e", 1)
    return text


def one_line(value: Any) -> str | None:
    """``value`` on one line as YAML (flow style, the document end left out), or None when only
    PyYAML can say how it writes it."""
    if type(value) is str:
        return _text(value, False)
    return _item(value, 0)
