"""``mprules validate [PATH...]``: every finding in rule files and ruleset directories at once,
sorted by file and line, as text, JSON or GitHub workflow annotations; exit 0 clean, 1 findings."""
from __future__ import annotations

import argparse
import sys

from rules_dsl.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Location, MprError, define
from interpreter.cli import common  # the parent package, already loaded

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

NO_SUCH_PATH = define(
    "MPR020", "{path}: no such file or directory", "{path}: ファイルもディレクトリもありません",
    exit_code=EXIT_USAGE)
EMPTY_PATH = define(
    "MPR073", "PATH {path} is empty: give a rule file or a ruleset directory",
    "PATH {path} が空です。ルールファイルかルールセットのディレクトリを指定してください", exit_code=EXIT_USAGE)
LONG_PATH = define(
    "MPR074", "PATH {path} is too long for the file system (a name of more than 255 bytes, or a path of "
              "more than 4,096)",
    "PATH {path} はファイルシステムには長すぎます（255 バイトを超える名前か、4,096 バイトを超えるパス）",
    exit_code=EXIT_USAGE)
UNREADABLE_PATH = define(
    "MPR024", "{path}: cannot be read (permission denied)", "{path}: 読み取れません（権限がありません）",
    exit_code=EXIT_USAGE)
COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate", help="check rule files and rulesets (schema, expressions, tables)",
        description="Check rule files and ruleset directories: YAML, schema, every expression, "
                    "references between rules, roll table coverage. Without PATH: the bundled rulesets.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="rule files or ruleset directories")
    parser.add_argument("--strict", action="store_true", help="warnings count as findings (exit 1)")
    rule_files_option(parser)
    parser.add_argument("--include-bundled", action="store_true",
                        help="also show the warnings and notes of the bundled rulesets a path extends")
    common(parser, formats=("text", "json", "github"))
    parser.set_defaults(handler=handle)


def rule_files_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only-rule-files", action="store_true",
                        help="skip the given YAML files that are not rule documents "
                             "(what a pre-commit hook passes: every changed .yaml)")


def given_paths(args: argparse.Namespace) -> list[str]:
    """The paths a verb works on: ``PATH...`` (those that are rule documents with
    ``--only-rule-files``), or the bundled rulesets when none is given."""
    # start-up: interpreter.checks.validation loads only when a verb asks for its paths
    from interpreter.checks.validation import bundled_targets, is_rule_file

    if not args.paths:
        return [] if args.only_rule_files else [str(p) for p in bundled_targets()]
    check_paths(args.paths)
    return [p for p in args.paths if is_rule_file(p)] if args.only_rule_files else args.paths


def check_paths(paths: list[str]) -> None:
    """Refuse (exit 2) a ``PATH`` that is empty, too long for the file system, does not exist
    or cannot be read."""
    # start-up: os, pathlib load only when check_paths() runs
    import errno
    import os
    from pathlib import Path

    for path in paths:
        if not path.strip():  # Path("") is "." (the current folder): never what was meant
            raise MprError(EMPTY_PATH, Location(path="PATH"), path=repr(path))
        try:
            os.stat(path)
        except OSError as error:
            if error.errno == errno.ENAMETOOLONG:
                shown = path if len(path) <= 80 else path[:80] + "…"
                raise MprError(LONG_PATH, Location(path="PATH"), path=shown) from None

    for path in paths:
        if not Path(path).exists():
            raise MprError(NO_SUCH_PATH, Location(path="PATH"), path=path)
        if not os.access(path, os.R_OK):
            raise MprError(UNREADABLE_PATH, Location(path="PATH"), path=path)


def handle(args: argparse.Namespace) -> int:
    try:
        return _handle(args)
    except MprError as error:
        if args.format == "json":  # a JSON reader gets JSON: the refusal as the one finding
            # start-up: interpreter.cli.output loads only when handle() runs
            from interpreter.cli.output import error_json, print_json

            print_json([error_json(error, args.lang)])
        raise


def _handle(args: argparse.Namespace) -> int:
    # start-up: interpreter.checks.validation, interpreter.cli.output load only when handle() runs
    from interpreter.checks.validation import shown_path, validate_paths
    from interpreter.cli.output import colour_enabled, print_json

    paths = given_paths(args)
    findings = validate_paths(paths, args.lang, include_bundled=args.include_bundled,
                              asked=args.paths)
    if args.format == "json":
        print_json([{**d.to_json(), "file": shown_path(d.file) or None} for d in findings])
    elif args.format == "github":
        for d in findings:
            level = {"error": "error", "warning": "warning"}.get(d.severity, "notice")
            print(f"::{level} file={_escape_property(_in_repository(d.file, shown_path))},line={d.line or 1},"
                  f"col={d.column or 1},title={d.code}::{_escape(d.message)}")
    else:
        colour = colour_enabled(sys.stdout)  # the stream of now, not of import time
        for d in findings:
            where = ":".join(str(p) for p in (shown_path(d.file), d.line, d.column) if p)
            code = f"{COLOURS.get(d.severity, '')}{d.code}\033[0m" if colour else d.code
            print(f"{where}: {code} {d.message}")
    failing = [d for d in findings if d.severity == "error" or (args.strict and d.severity == "warning")]
    return EXIT_FINDINGS if failing else EXIT_OK


def _in_repository(file: str | None, shown_path: Callable[[str | None], str]) -> str:
    """A file as GitHub attaches an annotation: relative to the checkout (``GITHUB_WORKSPACE``,
    when the job set it and the file is in it), else as the other formats show it."""
    # start-up: os, pathlib load only for the github format
    import os
    from pathlib import Path

    workspace = os.environ.get("GITHUB_WORKSPACE")
    if file and workspace:
        try:
            return Path(file).resolve().relative_to(Path(workspace).resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):
            pass
    return shown_path(file)


def _escape(text: str) -> str:
    """GitHub workflow-command data: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow-command property (``file=``): the data escapes, and ``:`` and ``,`` too."""
    return _escape(text).replace(":", "%3A").replace(",", "%2C")
