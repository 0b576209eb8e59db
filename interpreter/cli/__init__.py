"""The ``mprules`` command: parses arguments, calls the library, prints. No rule logic here.

Each verb is a module of this package exposing ``register(subparsers)``; the parser it adds sets
``handler`` to a function ``(args) -> int`` (the exit code). Modules import heavy things inside
their handler so that ``mprules --version`` starts fast.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import traceback
from typing import Any

from rules_dsl.errors import (EXIT_INTERNAL, EXIT_USAGE, INTERNAL, Location, MprError,
                              default_lang, define, render)

from interpreter import __version__
from interpreter.cli._i18n import localize, usage_error_text, use_language
from interpreter.cli.output import (flush_stdout, is_lost_output, lost_output, print_error, require_stdout,
                     settle_stdout)

USAGE = define("MPR001", "{detail}", "コマンドラインの誤り（mprules --help を参照）: {detail}", exit_code=EXIT_USAGE)


# An argument that starts with "-" yet is an expression (-2d6, -1+2d6, -(1+2)), not an option.
_EXPRESSION = re.compile(r"-[\s\d(０-９（]|-[dD]\d")


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as coded errors with exit 2, in the chosen language,
    and reads an argument like ``-2d6`` as a value, not as an unknown option."""

    lang = "en"

    def error(self, message: str) -> None:  # type: ignore[override]
        raise MprError(USAGE, Location(path=self.prog), detail=usage_error_text(message, self.lang))

    def _parse_optional(self, arg_string: str) -> Any:
        if arg_string not in self._option_string_actions and _EXPRESSION.match(arg_string):
            return None
        return super()._parse_optional(arg_string)


def build_parser(lang: str = "en") -> argparse.ArgumentParser:
    """The whole command tree, its help texts and argparse's own texts in ``lang``."""
    use_language(lang)
    _Parser.lang = lang
    parser = _Parser(prog="mprules", description="Rules interpreter for the MagicPunk TRPG optional rules")
    parser.add_argument("--version", action="version", version=f"mprules {__version__}")
    parser.add_argument("--lang", choices=["ja", "en"], default=None,
                        help="language of messages (default: from LANG)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not use the cache of loaded rulesets (also: MPRULES_NO_CACHE=1)")
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "output":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(sub)
    localize(parser, lang)
    return parser


def common(parser: argparse.ArgumentParser, *, formats: tuple[str, ...] = ("text", "json")) -> None:
    """Options every verb shares (also accepted after the verb)."""
    parser.add_argument("--format", choices=formats, default=formats[0], help="output format")
    parser.add_argument("--lang", choices=["ja", "en"], default=argparse.SUPPRESS,
                        help="language of messages (default: from LANG)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks of internal errors")
    parser.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS,
                        help="do not use the cache of loaded rulesets (also: MPRULES_NO_CACHE=1)")


def _lang_in(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (
            argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in ("ja", "en"):
            return value
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    lang = _lang_in(argv) or default_lang()  # known before parsing, for usage errors too
    debug = "--debug" in argv
    try:
        parser = build_parser(lang)
        args = parser.parse_args(argv)
        args.lang_given = args.lang is not None  # --lang on the command line, not from LANG
        lang = args.lang or lang
        args.lang = lang
        if getattr(args, "no_cache", False):
            from interpreter.ruleset import cache as ruleset_cache

            ruleset_cache.disable()
        if not getattr(args, "handler", None):
            parser.print_help()
            return EXIT_USAGE
        require_stdout()
        status = int(args.handler(args) or 0)
        flush_stdout()
        return status
    except MprError as error:
        print_error(error, lang)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        if not is_lost_output(error):
            return _internal(error, debug, lang)
        lost = lost_output(error)
        print_error(lost, lang)
        return lost.exit_code
    except Exception as error:  # a bug: one line, the traceback only with --debug
        return _internal(error, debug, lang)
    finally:
        settle_stdout()


def _internal(error: Exception, debug: bool, lang: str) -> int:
    if debug:
        traceback.print_exc()
    detail = f"{type(error).__name__}: {error}"
    print(f"mprules: {INTERNAL} {render(INTERNAL, {'detail': detail}, lang)}", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
