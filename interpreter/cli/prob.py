"""``mprules prob RULE_ID|EXPR|nMPmCx``: the exact distribution of a rule's outcome (for kinds that
have one), of an expression or of a check in BCDice notation, as rows of value, fraction, percent and bar; ``--svg FILE`` draws it."""
from __future__ import annotations

import sys

from rules_dsl.errors import EXIT_OK, EXIT_STATE, MprError, define
from rules_dsl.words import define_word, word
from interpreter.cli import common  # the parent package, already loaded

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

OUTCOME = define_word("cli.outcome", "outcome", "結果")
PROBABILITY = define_word("cli.probability", "probability", "確率")
VALUE = define_word("cli.value", "value", "値")
MEAN = define_word("cli.mean", "mean", "平均")
WROTE_CHART = define_word("cli.wrote_chart", "wrote the chart to {where}", "グラフを {where} に書きました")

SVG_UNWRITABLE = define(
    "MPR016", "cannot write the chart {file}: {reason}", "グラフ {file} を書き込めません: {reason}",
    exit_code=EXIT_STATE)

_ID_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_ID_CHARS = _ID_START | frozenset("0123456789_")


def _is_rule_id(text: str) -> bool:
    """``re.fullmatch(r"[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+", text)``, without compiling a pattern (start-up)."""
    parts = text.split(".")
    return len(parts) > 1 and text[:1] in _ID_START and all(
        part and all(c in _ID_CHARS for c in part) for part in parts)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "prob", help="exact distribution of a rule's outcome, an expression ('2d6 >= 7') or a check (3MP15C10)",
        description="Exact probabilities (fractions, not sampling) of a rule or an expression.")
    parser.add_argument("target", metavar="RULE_ID|EXPR|nMPmCx")
    parser.add_argument("--ruleset", metavar="DIR", help="ruleset directory (default: bundled)")
    parser.add_argument("--var", action="append", metavar="NAME=YAML", default=[],
                        help="an input or variable (YAML value); dotted names build mappings")
    parser.add_argument("--input", metavar="FILE", help="the rule's input as a YAML file (- for stdin)")
    parser.add_argument("--svg", metavar="FILE", help="also draw the distribution as an SVG bar chart")
    common(parser)
    parser.set_defaults(handler=handle)


def _may_be_notation(text: str) -> bool:
    """False when ``text`` is surely no check in BCDice notation: ASCII text without ``MP`` in
    any case (what the check's reading does to a text, NFKC and computing parentheses, leaves
    ASCII as it is and makes no letter). Then the notation's reader and its patterns are not
    loaded for a rule id (start-up)."""
    return not text.isascii() or "MP" in text.upper()


def handle(args: argparse.Namespace) -> int:
    if args.svg is None and args.input != "-" and not _may_be_notation(args.target):
        # start-up: a kept output is written before anything that makes one is imported
        from interpreter.reports.kept_output import Asked, place

        asked = Asked("prob", args.target, place(args.ruleset), place(args.input), tuple(args.var),
                      args.format, args.lang)
        kept = asked.found()
        if kept is not None:
            sys.stdout.write(kept.text)
            return kept.status
        return _kept(args, asked)
    return _answer(args)[0]


def _kept(args: argparse.Namespace, asked: Any) -> int:
    """The answer, written as it is made and kept for the next same command (``kept_output``):
    it depends on the arguments, the rulesets read and the ``--input`` file alone."""
    # start-up: the limits load only when an answer is made
    from interpreter.reports.limits import MAX_KEPT_OUTPUT_BYTES

    real = sys.stdout
    copy = sys.stdout = _Copied(real, MAX_KEPT_OUTPUT_BYTES)
    try:
        status, rulesets = _answer(args)
    finally:
        sys.stdout = real
    text = copy.text()
    if status == EXIT_OK and text is not None:
        asked.keep(text, rulesets, status, also=[args.input] if args.input is not None else [])
    return status


class _Copied:
    """Standard output while an answer is made: each text written through at once, and a copy of
    it all kept while it has at most ``bound`` characters (a longer one has more bytes than a kept
    output may have: it is not kept, nor held twice in memory). Not a terminal, as the text it
    copies is the same whatever the output is."""

    def __init__(self, real: Any, bound: int) -> None:
        self.real, self.bound, self.size = real, bound, 0
        self.parts: list[str] | None = []

    def write(self, text: str) -> int:
        self.real.write(text)
        if self.parts is not None:
            self.size += len(text)
            if self.size > self.bound:
                self.parts = None
            else:
                self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return False

    def text(self) -> str | None:
        """All that was written, or None when it was too long to keep."""
        return None if self.parts is None else "".join(self.parts)


def _answer(args: argparse.Namespace) -> tuple[int, list[Any]]:
    """The exit status and the rulesets read."""
    # start-up: interpreter.cli._expr, interpreter.cli.output load only when an answer is made
    from interpreter.cli._expr import load_input, parse_vars
    from interpreter.cli.output import refuse_input, refuse_special_file

    if args.svg is not None:
        refuse_special_file(args.svg, "--svg", SVG_UNWRITABLE)
        refuse_input(args.svg, "--svg", [args.input] if args.input not in (None, "-") else [])
    if _may_be_notation(args.target):
        # start-up: interpreter.solvers loads only for a text that may be a check
        from interpreter.solvers import pool_notation as core_check

        if core_check.is_notation(args.target):
            return _check(args), []
    env = parse_vars(args.var, load_input(args.input))
    if _is_rule_id(args.target) and args.target.split(".")[0] not in env:
        # start-up: interpreter.checks.loading loads only when handle() runs
        from interpreter.checks.loading import load_ruleset

        ruleset = load_ruleset(args.ruleset)
        if args.svg is not None:
            refuse_input(args.svg, "--svg", getattr(ruleset, "files", ()))
        return _rule(args, ruleset, env), [ruleset]
    return _expression(args, env), []


def _rule(args: argparse.Namespace, ruleset: Any, inputs: dict[str, Any]) -> int:
    # start-up: these modules load only when _rule() runs
    from interpreter.engine import runner as engine
    from interpreter.cli._expr import print_columns, row_label, row_labels

    try:
        tables = engine.distribution(ruleset, args.target, inputs, lang=args.lang)
    except MprError as error:  # an input's value named by its path: its place in --input's text
        # start-up: the input's positions load only for an error
        from interpreter.cli._expr import input_positions

        positions, file = input_positions(args.var)
        raise engine.locate_in_input(error, inputs, positions, file) from None
    if args.format == "json":
        from interpreter.cli.output import print_json  # start-up: the JSON writer only for --format json

        print_json({"rule": args.target, "tables": [t.to_json() for t in tables]})
    else:
        header = (word(OUTCOME, args.lang), word(PROBABILITY, args.lang))
        for i, table in enumerate(tables):
            if i:
                print()
            print(f"{args.target}: {table.title}")
            values, labels, ratios = table.outcomes()
            print_columns(row_labels(values, labels), ratios, header)
            if table.mean is not None:
                label = table.mean_label or word(MEAN, args.lang)
                print(f"{label} {_mean_text(table.mean)}")
            if table.note:
                print(table.note)
    if args.svg is not None:
        _write_svg(args.svg, [(f"{args.target}: {t.title}",
                               [(row_label(r.value, r.label), r.p) for r in t.rows]) for t in tables],
                   args.lang)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    """A check in BCDice notation (``3MP15C10``): each result line's chance, then success and
    each special result, from the check data of ``--ruleset``."""
    # start-up: these modules load only when _check() runs
    from interpreter.solvers import pool_notation as core_check
    from interpreter.cli._expr import print_rows
    from interpreter.cli.check import check_rules, odds_json, odds_lines
    from interpreter.cli.output import print_json

    rules = check_rules(args.ruleset)
    odds = core_check.odds(core_check.parse_notation(args.target, rules=rules), rules)
    lang = args.lang if args.lang_given else "ja"
    rows = odds.rows(lang)
    if args.format == "json":
        print_json(odds_json(odds))
    else:
        print_rows(rows, (word(OUTCOME, args.lang), word(PROBABILITY, args.lang)))
        print("\n".join(odds_lines(odds, args.lang)))
    _write_svg(args.svg, [(odds.spec.notation, rows)], args.lang)
    return EXIT_OK


def _expression(args: argparse.Namespace, env: dict[str, Any]) -> int:
    # start-up: rules_dsl loads only when _expression() runs
    from rules_dsl import compile_expression
    from rules_dsl import prob

    # start-up: these modules load only when _expression() runs
    from rules_dsl.plain import fraction_text
    from interpreter.cli._expr import print_rows, show, show_expression_error
    from interpreter.cli.output import print_json

    try:
        dist = prob.distribution(compile_expression(args.target, names=set(env)), env)
    except MprError as error:
        return show_expression_error(error, args.target, args.lang, args.format == "json")
    rows = [(show(value), p) for value, p in dist.items()]
    mean = dist.mean()
    if args.format == "json":
        print_json({"distribution": [{"value": value, "p": fraction_text(p),
                                      "percent": round(float(p) * 100, 2)} for value, p in dist.items()],
                    "mean": mean})
    else:
        header = (word(VALUE, args.lang), word(PROBABILITY, args.lang))
        print_rows(rows, header)
        if mean is not None:
            print(f"{word(MEAN, args.lang)} {_mean_text(mean)}")
    _write_svg(args.svg, [(args.target, rows)], args.lang)
    return EXIT_OK


def _mean_text(mean: Any) -> str:
    # start-up: fractions loads only when _mean_text() runs
    from fractions import Fraction

    if isinstance(mean, Fraction) and mean.denominator != 1:
        return f"{mean.numerator}/{mean.denominator} ({float(mean):.4g})"
    return str(mean)


def _write_svg(file: str | None, sections: list[tuple[str, list]], lang: str) -> None:
    """Write the chart of the (title, rows) ``sections`` to ``file`` and say where (on standard
    error: standard output stays the table or the JSON). The SVG writer loads only here."""
    if file is None:
        return
    # start-up: os, sys load only when _write_svg() runs
    import os
    import sys

    # start-up: interpreter.reports.svg, interpreter.cli.output load only when _write_svg() runs
    from interpreter.reports.svg import Section, render
    from interpreter.cli.output import write_file

    write_file(file, render([Section(title, rows) for title, rows in sections]), "--svg", SVG_UNWRITABLE)
    where = os.path.abspath(file)
    print(word(WROTE_CHART, lang).format(where=where),
          file=sys.stderr)
