"""``mprules check nMPmCx``: the dice pool check of the ruleset's ``parameters.core_check`` from dice
rolled at the table, a seed, or its exact odds. The first line is exactly BCDice's line
(``(3MP15C5) > [10,4,18] > 成功(10)``); ``-v`` adds one line per condition of the data. A failed
check is a result (exit 0), not an error."""
from __future__ import annotations

import argparse

from rules_dsl.errors import EXIT_OK, MprError
from rules_dsl.words import define_word, word
from interpreter.cli import common  # the parent package, already loaded

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SUCCESS_PROBABILITY = define_word("cli.success_probability", "success probability", "成功率")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check", help="roll or resolve the check nMPmCx (e.g. 3MP15C10), or its exact odds",
        description="The check of BCDice notation nMPmCx: n dice against the value m, with the "
                    "challenge value x; its rules come from the ruleset's parameters.core_check.")
    parser.add_argument("notation", metavar="NOTATION",
                        help="e.g. 3MP15C10, MP12, 0MP15C5, 3MP(10+5)C; BCDice's reading: a label "
                             "may follow after a space ('3MP15C10 label')")
    parser.add_argument("--dice", metavar="LIST", help="the dice rolled at the table, e.g. 9,4,18")
    parser.add_argument("--seed", type=int, metavar="N", help="roll with this seed")
    parser.add_argument("--prob", action="store_true",
                        help="print the exact chances of success and of each special result")
    parser.add_argument("--ruleset", metavar="DIR", help="ruleset directory (default: bundled)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="explain the result: one line per condition of the check")
    common(parser)
    parser.set_defaults(handler=handle)


def check_rules(ruleset: str | None) -> Any:
    """The check data of ``--ruleset`` (merged with what it extends), or of the bundled ruleset."""
    # start-up: interpreter.solvers loads only when check_rules() runs
    from interpreter.solvers import pool_notation as core_check

    if ruleset is None:
        return core_check.bundled_rules()
    # start-up: interpreter.checks.loading loads only when check_rules() runs
    from interpreter.checks.loading import load_ruleset

    return core_check.rules_of(load_ruleset(ruleset).parameters)


def odds_json(odds: Any) -> dict[str, Any]:
    """``{probability, percent}`` of success, then each special result and every outcome."""
    # start-up: rules_dsl.plain loads only when odds_json() runs
    from rules_dsl.plain import fraction_text

    def chance(p: Any) -> dict[str, Any]:
        return {"probability": fraction_text(p), "percent": round(float(p) * 100, 2)}

    return {**chance(odds.success), "notation": odds.spec.notation,
            "specials": {s.tag: chance(odds.special(s.tag)) for s in odds.rules.specials if s.tag},
            "outcomes": [{"result": label, **chance(p)} for label, p in odds.rows("ja")]}


def odds_lines(odds: Any, lang: str) -> list[str]:
    """``(3MP15C10) 成功率 657/1000 (65.70%)``, then one line per special result."""
    # start-up: interpreter.solvers, rules_dsl.plain load only when odds_lines() runs
    from interpreter.solvers import pool_notation as core_check
    from rules_dsl.plain import fraction_text

    def chance(p: Any) -> str:
        return f"{fraction_text(p)} ({float(p) * 100:.2f}%)"

    label = word(SUCCESS_PROBABILITY, lang)
    lines = [f"({odds.spec.notation}) {label} {chance(odds.success)}"]
    for special in (s for s in odds.rules.specials if s.tag):
        name = core_check.special_label(odds.rules, special.tag, lang)
        lines.append(f"  {special.tag} {name} {chance(odds.special(special.tag))}")
    return lines


def handle(args: argparse.Namespace) -> int:
    # start-up: interpreter.cli._dice loads only when handle() runs
    from interpreter.cli._dice import parse_dice_list, refuse_two_sources, source_from_args

    # start-up: interpreter.solvers, interpreter.cli, interpreter.cli.output load only when handle() runs
    from interpreter.solvers import pool_notation as core_check
    from interpreter.cli import USAGE
    from interpreter.cli.output import print_json

    rules = check_rules(args.ruleset)
    spec = core_check.parse_notation(args.notation, rules=rules)
    if args.prob:
        if args.dice is not None or args.seed is not None:
            raise MprError(USAGE, detail="mprules check: --prob takes no --dice or --seed")
        odds = core_check.odds(spec, rules)
        if args.format == "json":
            print_json(odds_json(odds))
        else:
            print("\n".join(odds_lines(odds, args.lang)))
        return EXIT_OK
    refuse_two_sources(args.seed, args.dice)
    if args.dice is not None:
        outcome = core_check.resolve(spec, parse_dice_list(args.dice), rules=rules)
    else:
        outcome = core_check.roll(spec, source_from_args(args.seed, None), rules=rules)
    # The result line is BCDice's, Japanese like BCDice's own, unless --lang en asks.
    lang = args.lang if args.lang_given else "ja"
    if args.format == "json":
        out = {**outcome.to_json(), "line": outcome.text(lang)}
        label = core_check.read_command(args.notation).label
        if label:  # a chat palette line's label, after the command (BCDice leaves it out of its line)
            out["label"] = label
        if args.verbose:
            out["explanation"] = outcome.explanation(lang)
        print_json(out)
    else:
        print(outcome.text(lang))
        if args.verbose:
            print("\n".join(outcome.explanation(lang)))
    return EXIT_OK
