"""``mprules check nMPmCx``: the core check (RULES.md Rc) from dice rolled at the table, a seed,
or its exact success probability. A failed check is a result (exit 0), not an error."""
from __future__ import annotations

import argparse

from rules_dsl.errors import EXIT_OK, MprError


def register(subparsers: argparse._SubParsersAction) -> None:
    from . import common

    parser = subparsers.add_parser(
        "check", help="roll or resolve the core check nMPmCx (e.g. 3MP15C10), or its probability",
        description="The core check (RULES.md Rc): n dice against the ability value m, with the "
                    "challenge value x (BCDice notation nMPmCx).")
    parser.add_argument("notation", metavar="NOTATION", help="e.g. 3MP15C10, MP12, 0MP15C5")
    parser.add_argument("--dice", metavar="LIST", help="the dice rolled at the table, e.g. 9,4,18")
    parser.add_argument("--seed", type=int, metavar="N", help="roll with this seed")
    parser.add_argument("--prob", action="store_true", help="print the exact success probability")
    common(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rules_dsl.dice import parse_dice_list, refuse_two_sources, source_from_args

    from .. import core_check
    from ..trace import fraction_text
    from . import USAGE
    from .output import print_json

    spec = core_check.parse_notation(args.notation)
    if args.prob:
        if args.dice is not None or args.seed is not None:
            raise MprError(USAGE, detail="mprules check: --prob takes no --dice or --seed")
        p = core_check.success_probability(spec)
        percent = round(float(p) * 100, 2)
        if args.format == "json":
            print_json({"probability": fraction_text(p), "percent": percent})
        else:
            label = "成功率" if args.lang == "ja" else "success probability"
            print(f"({spec.notation}) {label} {fraction_text(p)} ({percent:.2f}%)")
        return EXIT_OK
    refuse_two_sources(args.seed, args.dice)
    if args.dice is not None:
        outcome = core_check.resolve(spec, parse_dice_list(args.dice))
    else:
        outcome = core_check.roll(spec, source_from_args(args.seed, None))
    if args.format == "json":
        print_json(outcome.to_json())
    else:
        # The result line is BCDice's notation, Japanese like BCDice's own, unless --lang en asks.
        print(outcome.text(args.lang if args.lang_given else "ja"))
    return EXIT_OK
