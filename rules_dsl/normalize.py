"""Read full-width expression text as ASCII (``２Ｄ６＋１`` is ``2D6+1``) outside string literals,
and refuse invisible and control characters. One character maps to one character, so columns
in the normalised text are the columns as written."""
from __future__ import annotations

from .errors import Location, MprError, define

NUL_CHARACTER = define(
    "MPR101", "a NUL character (U+0000) is not allowed in an expression",
    "式に NUL 文字（U+0000）は使えません")
CONTROL_CHARACTER = define(
    "MPR102", "control character {codepoint} is not allowed in an expression",
    "式に制御文字 {codepoint} は使えません")
INVISIBLE_CHARACTER = define(
    "MPR103", "invisible character {codepoint} ({name}) is not allowed in an expression; "
    "delete it and retype the text around it",
    "式に見えない文字 {codepoint}（{name}）は使えません。削除して前後を打ち直してください")
UNCLOSED_STRING = define(
    "MPR104", "the string that starts here is not closed: add a closing {quote}",
    "ここから始まる文字列が閉じていません。閉じる {quote} を書いてください")

# Characters read as another single character outside strings (besides U+FF01..U+FF5E).
_EXTRA = {
    "\u3000": " ",  # ideographic space
    "\u00a0": " ",  # no-break space
    "\u2212": "-",  # minus sign
    "\u2010": "-", "\u2011": "-", "\u2013": "-",  # hyphens and en dash
    "\u2014": "-", "\u2015": "-",  # em dash and horizontal bar (― from a Japanese IME)
    "\u00d7": "*",  # ×
    "\u00f7": "/",  # ÷
    "\u201c": '"', "\u201d": '"',  # “ ”
    "\u2018": "'", "\u2019": "'",  # ‘ ’
}
_ALLOWED_CONTROLS = {"\t", "\n", "\r"}


def fold_char(ch: str) -> str:
    """The ASCII reading of one character outside strings (itself when it has none)."""
    code = ord(ch)
    if 0xFF01 <= code <= 0xFF5E:
        return chr(code - 0xFEE0)
    return _EXTRA.get(ch, ch)


def position(text: str, index: int) -> tuple[int, int]:
    """(line, column), both from 1, of ``text[index]``."""
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return line, index - start + 1


def locate(origin: Location | None, text: str, index: int) -> Location:
    """The location of ``text[index]``, shifted from ``origin`` (the text's first character)."""
    line, column = position(text, index)
    return at(origin, line, column)


def at(origin: Location | None, line: int, column: int) -> Location:
    """The location of (line, column) of the expression text, shifted from ``origin``."""
    base = origin if origin is not None else Location()
    return base.shifted(line - 1, column)


def refuse_invisible(text: str, origin: Location | None) -> None:
    """Raise on the first NUL, control or invisible (format) character."""
    for index, ch in enumerate(text):
        if ch.isprintable() or ch in _ALLOWED_CONTROLS or ch in _EXTRA:
            continue
        codepoint = f"U+{ord(ch):04X}"
        import unicodedata  # start-up: only for a character that is not printable

        category = unicodedata.category(ch)
        if ch == "\0":
            raise MprError(NUL_CHARACTER, locate(origin, text, index))
        if category == "Cc":
            raise MprError(CONTROL_CHARACTER, locate(origin, text, index), codepoint=codepoint)
        if category in ("Cf", "Zl", "Zp", "Co", "Cs", "Cn") or category.startswith("Z"):
            name = unicodedata.name(ch, category)
            raise MprError(INVISIBLE_CHARACTER, locate(origin, text, index),
                           codepoint=codepoint, name=name)


def normalize(text: str, origin: Location | None = None) -> str:
    """The text with full-width characters outside string literals read as ASCII.

    String literals (between matching quotes, full-width quotes included) are kept as written;
    their quotes become ASCII quotes. Raises MprError on invisible characters and unclosed strings.
    """
    refuse_invisible(text, origin)
    out: list[str] = []
    quote: str | None = None  # the ASCII quote of the open string
    closer = ""  # the characters that close it (the quote as written, in either width)
    start = 0
    escaped = False
    for index, ch in enumerate(text):
        if quote is None:
            folded = fold_char(ch)
            if folded in ("'", '"'):
                quote, closer, start = folded, ch, index
            out.append(folded)
            continue
        if escaped:
            escaped = False
            out.append(ch)
        elif ch == "\\":
            escaped = True
            out.append(ch)
        elif ch == closer:
            quote = None
            out.append(fold_char(ch))
        elif ch == "\n":
            raise MprError(UNCLOSED_STRING, locate(origin, text, start), quote=closer)
        else:
            out.append(ch)
    if quote is not None:
        raise MprError(UNCLOSED_STRING, locate(origin, text, start), quote=closer)
    return "".join(out)
