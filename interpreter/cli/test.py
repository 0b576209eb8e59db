"""``mprules test [PATH...]``: runs every rule document's embedded ``examples``; prints each failure
with a diff of expected and actual and one summary line (``-v``: every example); exit 1 on any
failure."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rules_dsl.errors import EXIT_FINDINGS, EXIT_OK, MprError, define, render
from rules_dsl.words import define_word, word
from interpreter.cli import common  # the parent package, already loaded
from interpreter.cli.validate import rule_files_option

SUMMARY = define_word("cli.test_summary", "{passed} passed, {failed} failed", "成功 {passed} 件、失敗 {failed} 件")
BROKEN = define_word("cli.test_broken", ", {broken} ruleset(s) with errors", "、エラーのあるルールセット {broken} 件")

if TYPE_CHECKING:
    from rules_dsl.errors import Diagnostic
    from interpreter.checks.examples import Outcome

RULESET_ERRORS = define(
    "MPR023", "{target}: the examples cannot run, the ruleset has errors (see mprules validate)",
    "{target}: ルールセットにエラーがあるため例を実行できません（mprules validate を参照）")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "test", help="run the examples embedded in rule documents",
        description="Run every document's examples (input, dice, expected value). "
                    "Without PATH: the bundled rulesets.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="ruleset directories or rule files")
    rule_files_option(parser)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show every example, not only failures")
    common(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        return _handle(args)
    except MprError as error:
        if args.format == "json":  # a JSON reader gets JSON: the refusal in the summary's shape
            # start-up: these modules load only when a refusal is shown as JSON
            from interpreter.cli.output import error_json, print_json

            print_json({"passed": 0, "failed": 0, "broken": [], "examples": [],
                        "error": error_json(error, args.lang)})
        raise


def _handle(args: argparse.Namespace) -> int:
    # start-up: these modules load only when handle() runs
    from interpreter.checks.kept import examples_of
    from interpreter.checks.loading import display_path
    from interpreter.checks.validation import expand, shown_path
    from interpreter.cli.output import print_json
    from interpreter.cli.validate import given_paths

    paths = given_paths(args)
    outcomes: list[Outcome] = []
    broken: list[tuple[str, list[Diagnostic]]] = []
    for root, only in expand(paths):
        ran, errors = examples_of(root, args.lang, only)  # kept while the ruleset's files stay
        if ran is None:
            broken.append((display_path(root), errors))
            continue
        seen = {(o.file, o.line) for o in outcomes}  # a base's examples run once, not per variant
        outcomes.extend(o for o in ran if (o.file, o.line) not in seen or not o.passed)
    failed = [o for o in outcomes if not o.passed]
    if args.format == "json":
        print_json({"passed": len(outcomes) - len(failed), "failed": len(failed),
                    "broken": [shown_path(t) for t, _ in broken],
                    "examples": [{**o.to_json(), "file": shown_path(o.file) or None} for o in outcomes]})
    else:
        for target, errors in broken:
            target = shown_path(target)
            print(f"{target}: {RULESET_ERRORS} {render(RULESET_ERRORS, {'target': target}, args.lang)}")
            for d in errors:
                where = ":".join(str(p) for p in (shown_path(d.file), d.line, d.column) if p)
                print(f"  {where or d.path or target}: {d.code} {d.message}")
        for o in outcomes:
            if o.passed and not args.verbose:
                continue
            status = "PASS" if o.passed else "FAIL"
            print(f"{status} {shown_path(o.file)}:{o.line} {o.rule} :: {o.name}")
            if not o.passed:
                for line in o.diff.splitlines():
                    print(f"    {line}")
        print(_summary(len(outcomes) - len(failed), len(failed), len(broken), args.lang))
    return EXIT_FINDINGS if failed or broken else EXIT_OK


def _summary(passed: int, failed: int, broken: int, lang: str) -> str:
    summary = word(SUMMARY, lang).format(passed=passed, failed=failed)
    return summary + (word(BROKEN, lang).format(broken=broken) if broken else "")
