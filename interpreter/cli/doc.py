"""``mprules doc DIR``: a Japanese handout of a ruleset's adopted rules (Markdown, or HTML with
``--html``), marking what a variant changed from its base."""
from __future__ import annotations

import argparse
import sys

from rules_dsl.errors import EXIT_OK, EXIT_STATE, define

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
    # start-up: a kept output is written before anything that makes one is imported
    from interpreter.reports.kept_output import Asked, place
    from interpreter.cli.output import refuse_input, refuse_special_file, write_file

    if args.output is not None:
        refuse_special_file(args.output, "--output", UNWRITABLE)
    asked = Asked("doc", place(args.path), args.html, args.gm, place(args.base), args.lang)
    kept = asked.found()
    if kept is not None:
        text, reads = kept.text, kept.reads
    else:
        # start-up: the handout's modules load only when it must be made
        from interpreter.reports.handout import handout_made
        from interpreter.documents.resources import bundled_ruleset

        text, rulesets = handout_made(args.path or bundled_ruleset(), as_html=args.html, base=args.base,
                                      lang=args.lang, gm=args.gm)
        asked.keep(text, rulesets, EXIT_OK)
        reads = [f for ruleset in rulesets for f in ruleset.files]
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    refuse_input(args.output, "--output", reads)
    write_file(args.output, text, "--output", UNWRITABLE)
    return EXIT_OK
