"""``mprules diff BASE VARIANT``: what a variant changes against its base, down to the exact
probabilities that move (text, JSON or Markdown)."""
from __future__ import annotations

import argparse
import sys

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
    # start-up: a kept output is written before anything that makes one is imported
    from interpreter.reports.kept_output import Asked, place

    asked = Asked("diff", place(args.base), place(args.variant), args.format, args.lang)
    kept = asked.found()
    if kept is not None:
        sys.stdout.write(kept.text)
        return kept.status
    # start-up: these modules load only when the output must be made
    from interpreter.reports.diff import compare
    from interpreter.reports.diff_render import render_markdown, render_text
    from interpreter.checks.loading import load_ruleset
    from interpreter.cli.output import json_text

    # start-up: the ruleset cache is loaded already by load_ruleset's module
    from interpreter.ruleset.cache import holding_two

    with holding_two():
        base = load_ruleset(args.base, lang=args.lang)
        variant = load_ruleset(args.variant, lang=args.lang)
    diff = compare(base, variant, args.lang)
    if args.format == "json":
        text = json_text(diff.to_json())
    elif args.format == "markdown":
        text = render_markdown(diff)
    else:
        text = render_text(diff) + "\n"
    asked.keep(text, [base, variant], EXIT_OK)
    sys.stdout.write(text)
    return EXIT_OK
