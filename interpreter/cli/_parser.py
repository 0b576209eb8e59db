"""The argparse side of the command line: its help formatter and a parser that reports usage errors
as coded errors (exit 2) in the chosen language and reads an argument like ``-2d6`` as a value.
Loaded only when a command line is parsed by argparse (``interpreter.cli.build_parser``)."""
from __future__ import annotations

import argparse
import os
import re
import sys

from rules_dsl.errors import Location, MprError

from interpreter.cli import _EXPRESSION, USAGE
from interpreter.cli._i18n import usage_error_text

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it, without importing shutil."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        # A text that fits on one line (--version, most descriptions) is that line: textwrap,
        # which argparse loads to fill it, is left for longer texts (start-up).
        line = self._whitespace_matcher.sub(" ", text).strip()
        if line and len(indent) + len(line) <= width:
            return indent + line
        return super()._fill_text(text, width, indent)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as coded errors with exit 2, in the chosen language,
    and reads an argument like ``-2d6`` as a value, not as an unknown option."""

    lang = "en"

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> None:  # type: ignore[override]
        raise MprError(USAGE, Location(path=self.prog), detail=usage_error_text(message, self.lang))

    def _parse_optional(self, arg_string: str) -> Any:
        if arg_string[:1] == "-" and arg_string not in self._option_string_actions \
                and (re.match(_EXPRESSION, arg_string) or _negated(arg_string, self._option_string_actions)):
            return None
        return super()._parse_optional(arg_string)


def _negated(arg: str, options: Any) -> bool:
    """``-x``, ``-min(1,2)``: one dash and no option's letter after it is an expression (the
    options of one letter, ``-h`` ``-o`` ``-v``, and their attached values stay options)."""
    return arg[1:2] not in ("", "-") and arg[:2] not in options
