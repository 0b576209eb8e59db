"""``mprules diff BASE VARIANT``: what a variant changes against its base, down to the exact
probabilities that move (text, JSON or Markdown)."""
from __future__ import annotations

import argparse

from rules_dsl.errors import EXIT_OK
from interpreter.cli import common  # the parent package, already loaded


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff", help="what a variant changes: rules, parameters, rows, and the probabilities that move",
        description="Compare two rulesets (a base and a variant): rules added, removed and not "
                    "adopted, every changed parameter and row, and for each probe input the exact "
                    "probabilities (or values) that move.")
    parser.add_argument("base", metavar="BASE", help="the base ruleset directory (e.g. rulesets/magipunk)")
    parser.add_argument("variant", metavar="VARIANT", help="the variant ruleset directory")
    common(parser, formats=("text", "json", "markdown"))
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # start-up: these modules load only when handle() runs
    from interpreter.reports.diff import compare
    from interpreter.reports.diff_render import render_markdown, render_text
    from interpreter.checks.loading import load_ruleset
    from interpreter.cli.output import print_json

    diff = compare(load_ruleset(args.base, lang=args.lang), load_ruleset(args.variant, lang=args.lang),
                   args.lang)
    if args.format == "json":
        print_json(diff.to_json())
    elif args.format == "markdown":
        print(render_markdown(diff), end="")
    else:
        print(render_text(diff))
    return EXIT_OK
