"""Text templates: labels, titles, rule text and messages that show the values of parameters.

A template is plain text with placeholders ``{expression}``: any expression of the language,
evaluated in the same names a rule's expressions see (``{params.allowance}``,
``{len(residents)}``). ``{{`` and ``}}`` are literal braces. A value is shown the way a reader
expects in the chosen language: a list is joined with ``、`` (ja) or ``, `` (en), an exact
fraction as ``7/2``, ``true``/``false`` as はい/いいえ (ja) or yes/no (en), ``null`` as an empty
text. A template without placeholders renders as itself, at no cost.
"""
from __future__ import annotations

from collections.abc import Mapping
from .frozen import Record  # a dataclass without importing dataclasses (start-up)

from .errors import Location, MprError, define
from .functions import is_fraction, kind
from .normalize import at
from .words import LIST_SEPARATOR, NO, YES, word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .expression import Expression

UNCLOSED = define(
    "MPR180", "a placeholder '{{' in the text is not closed by '}}' (write '{{{{' for a literal brace)",
    "文中のプレースホルダ '{{' が '}}' で閉じられていません（波括弧そのものは '{{{{' と書きます）")
STRAY_CLOSE = define(
    "MPR181", "a '}}' in the text closes no placeholder (write '}}}}' for a literal brace)",
    "文中の '}}' に対応する '{{' がありません（波括弧そのものは '}}}}' と書きます）")
EMPTY_PLACEHOLDER = define(
    "MPR182", "an empty placeholder '{{}}' in the text", "文中に空のプレースホルダ '{{}}' があります")
NOT_TEXT = define(
    "MPR183", "the placeholder {{{text}}} gives a {kind}, which cannot be shown as text",
    "プレースホルダ {{{text}}} の値（{kind}）は文として表示できません")

class Template(Record, frozen=True):
    """A parsed template: literal parts and compiled placeholders, in order."""

    text: str
    parts: tuple[str | Expression, ...]

    @property
    def names(self) -> frozenset[str]:
        """The root names its placeholders read (``params``, ``residents``, ...)."""
        found: set[str] = set()
        for part in self.parts:
            if not isinstance(part, str):
                found |= part.names
        return frozenset(found)

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The text of each placeholder, in order."""
        return tuple(part.text for part in self.parts if not isinstance(part, str))

    def render(self, env: Mapping[str, Any], lang: str = "ja") -> str:
        """The text with every placeholder replaced by its value, shown for ``lang``."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(show(part.evaluate(env, None), lang, part.text))
        return "".join(out)


def show(value: Any, lang: str = "ja", text: str = "") -> str:
    """A value as a reader reads it in ``lang`` (see the module's docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return word(YES if value else NO, lang)
    if isinstance(value, (int, str)):
        return str(value)
    if is_fraction(value):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, (list, tuple)):
        return word(LIST_SEPARATOR, lang).join(show(item, lang, text) for item in value)
    if isinstance(value, Mapping) and lang in value and isinstance(value[lang], str):
        written: str = value[lang]  # a {ja, en} text given as a value
        return written
    raise MprError(NOT_TEXT, None, text=text, kind=kind(value))


def compile_template(text: str, origin: Location | None = None) -> Template:
    """Parse ``text`` into a ``Template``; a bad placeholder is an ``MprError`` located at its
    column (``origin`` is where the text starts in its file)."""
    # start-up: the parser and compiler load when a template is compiled, not when its module is
    from .expression import compile_expression

    parts: list[str | Expression] = []
    literal: list[str] = []
    i, n = 0, len(text)
    line, column = 1, 1

    def advance(chunk: str) -> None:
        nonlocal line, column
        newlines = chunk.count("\n")
        if newlines:
            line += newlines
            column = len(chunk) - chunk.rfind("\n")
        else:
            column += len(chunk)

    while i < n:
        ch = text[i]
        if ch == "{" and text.startswith("{{", i):
            literal.append("{")
            advance("{{")
            i += 2
        elif ch == "}" and text.startswith("}}", i):
            literal.append("}")
            advance("}}")
            i += 2
        elif ch == "}":
            raise MprError(STRAY_CLOSE, at(origin, line, column))
        elif ch == "{":
            end = _closing(text, i + 1)
            if end < 0:
                raise MprError(UNCLOSED, at(origin, line, column))
            inner = text[i + 1:end]
            if not inner.strip():
                raise MprError(EMPTY_PLACEHOLDER, at(origin, line, column))
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(compile_expression(inner, at(origin, line, column + 1)))
            advance(text[i:end + 1])
            i = end + 1
        else:  # the text up to the next brace, at once
            end = min((j for j in (text.find("{", i), text.find("}", i)) if j >= 0), default=n)
            chunk = text[i:end]
            literal.append(chunk)
            advance(chunk)
            i = end
    if literal:
        parts.append("".join(literal))
    return Template(text, tuple(parts))


def _closing(text: str, start: int) -> int:
    """The index of the ``}`` that closes a placeholder opened before ``start``; braces inside
    string literals and nested brackets do not count. -1 when it is not closed."""
    quote = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "}":
            return i
        elif ch == "\n":
            return -1
        i += 1
    return -1


def has_placeholders(text: str) -> bool:
    """Whether ``text`` holds a ``{placeholder}`` (literal ``{{``/``}}`` aside)."""
    return "{" in text.replace("{{", "").replace("}}", "")
