"""``mprules doc DIR``: a Japanese handout of a ruleset's adopted rules (Markdown, or HTML with
``--html``), marking what a variant changed from its base."""
from __future__ import annotations

import argparse

from rules_dsl.errors import EXIT_OK, EXIT_STATE, define

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNWRITABLE = define(
    "MPR960", "cannot write the handout {file}: {reason}", "ハンドアウト {file} を書き込めません: {reason}",
    exit_code=EXIT_STATE)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doc", help="a Japanese handout of the adopted rules (Markdown; --html)",
        description="Write a handout of a ruleset's adopted rules in Japanese, for the players: the "
                    "texts in the source's words and order with every value filled in, the ruleset's "
                    "interpretations marked, tables, probability bars for rolled rules, and a ★ on "
                    "what a variant changed from its base (the ruleset it extends). --gm adds rule "
                    "ids, parameters and formulas.")
    parser.add_argument("path", nargs="?", default=None, metavar="DIR",
                        help="ruleset directory (default: the bundled ruleset)")
    parser.add_argument("--html", action="store_true", help="a self-contained HTML page instead of Markdown")
    parser.add_argument("--gm", action="store_true", help="the GM's handout: add rule ids, parameters and formulas")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--base", metavar="DIR",
                        help="mark changes against this ruleset (default: the root of the variant's extends)")
    parser.add_argument("--lang", choices=["ja", "en"], default=argparse.SUPPRESS)
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # start-up: these modules load only when handle() runs
    from interpreter.reports.handout import handout
    from interpreter.documents.resources import bundled_ruleset
    from interpreter.cli.output import refuse_input, refuse_special_file, write_file

    if args.output is not None:
        refuse_special_file(args.output, "--output", UNWRITABLE)
    text = handout(args.path or bundled_ruleset(), as_html=args.html, base=args.base, lang=args.lang,
                   gm=args.gm)
    if args.output is None:
        print(text, end="")
        return EXIT_OK
    refuse_input(args.output, "--output", _read_files(args.path or bundled_ruleset(), args.base))
    write_file(args.output, text, "--output", UNWRITABLE)
    return EXIT_OK


def _read_files(path: Any, base: str | None) -> list[str]:
    """Every file the handout was made from (the ruleset's, and those of ``base``)."""
    # start-up: interpreter.checks.loading loads only when a handout is written to a file
    from interpreter.checks.loading import load_ruleset

    files = list(load_ruleset(path).files)
    if base is not None:
        files += load_ruleset(base).files
    return files
