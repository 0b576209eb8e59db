"""``mprules eval EXPR``: evaluate one expression of the rule language, with variables from
``--var k=v`` and dice from ``--seed`` or ``--dice`` (the dice rolled at the table)."""
from __future__ import annotations

import argparse

from rules_dsl.errors import EXIT_OK
from interpreter.cli import common  # the parent package, already loaded


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval", help="evaluate an expression, e.g. '2d6 + safety' --var safety=1",
        description="Evaluate an expression of the rule language and show its value and dice.")
    parser.add_argument("expression", metavar="EXPR", help="the expression, e.g. 2d6+1 or -1+2d6")
    parser.add_argument("--var", action="append", metavar="NAME=YAML", default=[],
                        help="a variable (YAML value); dotted names build mappings: item.quality=傑作")
    parser.add_argument("--seed", type=int, metavar="N", help="roll the dice with this seed")
    parser.add_argument("--dice", metavar="LIST", help="the dice rolled at the table, e.g. 3,4")
    common(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # start-up: rules_dsl, interpreter.cli._dice, rules_dsl.dice, rules_dsl.errors load only when handle() runs
    from rules_dsl import compile_expression
    from interpreter.cli._dice import source_from_args
    from rules_dsl.dice import SCRIPT_UNUSED, ScriptedDice
    from rules_dsl.errors import MprError

    # start-up: interpreter.cli._expr, interpreter.cli.output load only when handle() runs
    from interpreter.cli._expr import parse_vars, show_exact, show_expression_error
    from interpreter.cli.output import print_json, refuse_huge_output

    env = parse_vars(args.var)
    dice = source_from_args(args.seed, args.dice)
    try:
        expression = compile_expression(args.expression, names=set(env))
        value = expression.evaluate(env, dice)
    except MprError as error:  # a caret under the column, when the error has one
        return show_expression_error(error, args.expression, args.lang, args.format == "json")
    if isinstance(dice, ScriptedDice) and dice.unused:
        raise MprError(SCRIPT_UNUSED, dice.loc, unused=len(dice.unused),
                       values=",".join(map(str, dice.unused)), used=len(dice.rolled))
    refuse_huge_output(value)
    if args.format == "json":
        print_json({"value": value, "dice": dice.values})
    else:
        rolled = f" > [{','.join(map(str, dice.values))}]" if dice.values else ""
        print(f"({args.expression}){rolled} > {show_exact(value, args.lang)}")
    return EXIT_OK
