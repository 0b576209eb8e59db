"""The project's one error type and its bilingual message catalogue.

Every error a user can cause is an ``MprError`` with a stable code (``MPR101``), the arguments
of its message, and where it happened (file:line:column, a field path, or a CLI argument).
Messages are looked up by code in a catalogue that each module extends with ``define``;
they are rendered in Japanese or English only when printed.

Code ranges: MPR0xx command line and I/O, MPR1xx expression language, MPR2xx YAML documents,
MPR3xx schema, MPR4xx ruleset and semantic checks, MPR5xx rule inputs and execution,
MPR6xx campaign and deck, MPR7xx packages and actions, MPR8xx procedures, MPR9xx variants and diff.
"""
from __future__ import annotations

import os

from .diagnostic import Diagnostic as Diagnostic
from .frozen import Frozen

TYPE_CHECKING = False  # typing is not imported at run time: this module loads with every command
if TYPE_CHECKING:
    from typing import Any

# Exit codes, the same for every command.
EXIT_OK = 0
EXIT_FINDINGS = 1  # findings, a bad expression, refused input
EXIT_USAGE = 2  # bad command-line usage
EXIT_STATE = 3  # state or I/O error (campaign file, unreadable file)
EXIT_INTERNAL = 70  # a bug


class Message:
    """The English and Japanese text of a code, its exit code and its severity."""

    __slots__ = ("en", "ja", "exit_code", "severity")

    def __init__(self, en: str, ja: str, exit_code: int = EXIT_FINDINGS,
                 severity: str = "error") -> None:
        self.en, self.ja, self.exit_code, self.severity = en, ja, exit_code, severity

    def __repr__(self) -> str:
        return (f"Message(en={self.en!r}, ja={self.ja!r}, exit_code={self.exit_code!r}, "
                f"severity={self.severity!r})")


MESSAGES: dict[str, Message] = {}


def define(code: str, en: str, ja: str, *, exit_code: int = EXIT_FINDINGS,
           severity: str = "error") -> str:
    """Register the message of ``code``; returns the code so modules can keep it as a constant."""
    known = MESSAGES.get(code)
    if known is not None and (known.en, known.ja) != (en, ja):
        raise RuntimeError(f"message code {code} defined twice with different texts")
    MESSAGES[code] = Message(en, ja, exit_code, severity)
    return code


def default_lang() -> str:
    """``ja`` when the locale says Japanese, ``en`` otherwise."""
    for var in ("MPRULES_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


class Location(Frozen):
    """Where something is: a file position, a path inside a value, or a command-line argument.
    Immutable and hashable (a value, compared by its four fields); built often, so it has its own
    ``__init__``."""

    __slots__ = ("file", "line", "column", "path")
    file: str | None
    line: int | None
    column: int | None
    path: str | None

    def __init__(self, file: str | None = None, line: int | None = None,
                 column: int | None = None, path: str | None = None) -> None:
        setter = object.__setattr__
        setter(self, "file", file)
        setter(self, "line", line)
        setter(self, "column", column)
        setter(self, "path", path)

    def _key(self) -> tuple[Any, ...]:
        return (self.file, self.line, self.column, self.path)

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        where = ":".join(parts)
        if self.path:
            where = f"{where} ({self.path})" if where else self.path
        return where

    def shifted(self, line_offset: int, column: int) -> "Location":
        """The location of a position inside a text that starts at this location."""
        if self.line is None:
            return Location(self.file, line_offset + 1, column, self.path)
        if line_offset == 0:
            base = self.column or 1
            return Location(self.file, self.line, base + column - 1, self.path)
        return Location(self.file, self.line + line_offset, column, self.path)


class Hint:
    """A "did you mean" suggestion, rendered in the language of the message it sits in."""

    __slots__ = ("suggestion",)

    def __init__(self, suggestion: str | None) -> None:
        self.suggestion = suggestion

    def render(self, lang: str) -> str:
        if self.suggestion is None:
            return ""
        if lang == "ja":
            return f"（もしかして {self.suggestion!r}？）"
        return f" (did you mean {self.suggestion!r}?)"

    def __str__(self) -> str:
        return self.render("en")

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __bool__(self) -> bool:
        return self.suggestion is not None


def _folded(text: str) -> str:
    """Text as a GM meant it: full-width forms folded, invisible characters dropped, any case."""
    # start-up: only a suggestion needs it; --version never loads it
    import unicodedata

    plain = unicodedata.normalize("NFKC", text)
    return "".join(c for c in plain if unicodedata.category(c) != "Cf").casefold()


def did_you_mean(name: Any, options: Any, cutoff: float | None = None) -> Hint:
    """The nearest of ``options`` to ``name`` as a ``Hint`` (empty when nothing is close).

    Matching ignores case, full-width forms and invisible characters, so ``ＦＬＯＯＲ`` and
    ``Floor`` both find ``floor``. Short words (Japanese names are often two characters: 傑做 for
    傑作) are matched with a lower default cutoff, since one wrong character halves their score."""
    # start-up: difflib loads only when a name is unknown and a suggestion is made
    import difflib

    folded = _folded(str(name))
    if cutoff is None:
        cutoff = 0.5 if len(folded) <= 4 else 0.6
    candidates: dict[str, str] = {}
    for option in options:
        candidates.setdefault(_folded(str(option)), str(option))
    close = difflib.get_close_matches(folded, list(candidates), n=1, cutoff=cutoff)
    if not close or candidates[close[0]] == str(name):
        return Hint(None)
    return Hint(candidates[close[0]])


class Phrase:
    """A part of a message said in both languages (a detail, another error's code and message),
    rendered in the language of the message it sits in."""

    __slots__ = ("en", "ja", "args")

    def __init__(self, en: str, ja: str, **args: Any) -> None:
        self.en, self.ja, self.args = en, ja, args

    @classmethod
    def of(cls, error: MprError) -> Phrase:
        """Another error's code and message, as a detail of this one."""
        return cls(f"{error.code} {{message}}", f"{error.code} {{message}}",
                   message=_Said(error))

    def render(self, lang: str) -> str:
        args = {k: v.render(lang) if isinstance(v, (Hint, Phrase, _Said)) else v
                for k, v in self.args.items()}
        return (self.ja if lang == "ja" else self.en).format(**args)

    def __str__(self) -> str:
        return self.render("en")

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class _Said:
    __slots__ = ("error",)

    def __init__(self, error: MprError) -> None:
        self.error = error

    def render(self, lang: str) -> str:
        return self.error.message(lang)


def render(code: str, args: dict[str, Any], lang: str) -> str:
    message = MESSAGES.get(code)
    if message is None:
        return f"{code} {args}"
    template = message.ja if lang == "ja" else message.en
    args = {k: v.render(lang) if isinstance(v, (Hint, Phrase)) else v for k, v in args.items()}
    try:
        return template.format(**args)
    except (KeyError, IndexError, ValueError):
        return f"{template} {args}"


class MprError(Exception):
    """A user-caused error: a code, message arguments and a location."""

    def __init__(self, code: str, loc: Location | None = None, **args: Any) -> None:
        self.code = code
        self.loc = loc
        self.args_ = args
        super().__init__(f"{code} {render(code, args, 'en')}")

    @property
    def exit_code(self) -> int:
        message = MESSAGES.get(self.code)
        return message.exit_code if message else EXIT_FINDINGS

    def message(self, lang: str = "en") -> str:
        return render(self.code, self.args_, lang)

    def at(self, loc: Location) -> "MprError":
        """The same error located at ``loc`` if it had no location yet."""
        if self.loc is None or (self.loc.line is None and self.loc.file is None and loc):
            path = self.loc.path if self.loc else None
            self.loc = Location(loc.file, loc.line, loc.column, path or loc.path)
        return self

    def diagnostic(self, lang: str = "en") -> "Diagnostic":
        loc = self.loc or Location()
        message = MESSAGES.get(self.code)
        return Diagnostic(loc.file, loc.line, loc.column, self.code,
                          message.severity if message else "error", self.message(lang),
                          path=loc.path)

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        return f"{where}{self.code} {self.message('en')}"


def diagnostic(code: str, loc: Location | None, lang: str = "en", *,
               severity: str | None = None, **args: Any) -> Diagnostic:
    """Build a finding directly (for generators of diagnostics that do not raise)."""
    loc = loc or Location()
    message = MESSAGES.get(code)
    sev = severity or (message.severity if message else "error")
    return Diagnostic(loc.file, loc.line, loc.column, code, sev, render(code, args, lang),
                      path=loc.path)


