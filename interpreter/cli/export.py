"""``mprules export bcdice RULE_ID`` and ``mprules export ccfolia``: a roll table as a BCDice
original table, the ruleset's checks as a CCFOLIA chat palette (``interpreter.reports.export``)."""
from __future__ import annotations

import argparse
import sys

from rules_dsl.errors import EXIT_OK, EXIT_STATE, EXIT_USAGE, Location, MprError, define
from rules_dsl.words import define_word, word
from interpreter.cli import common  # the parent package, already loaded

LEFT_OUT = define_word("cli.left_out", "left out: ", "省いた判定: ")
SEVERAL_CHARACTERS = define(
    "MPR327", "{file} has {count} characters ({ids}): a CCFOLIA chat palette is one character's; "
    "give --character ID for each",
    "{file} にはキャラクターが {count} 人います（{ids}）。CCFOLIA のチャットパレットは1人分です。"
    "--character ID で1人ずつ書き出してください", exit_code=EXIT_USAGE)
OUTSIDE_DICE = define_word(
    "cli.outside_dice", "rows no roll of {dice} gives, written on the nearest line as reached by a "
    "change of the roll: {rows}; --shift N writes the table of the roll changed by N",
    "{dice} の出目では出ない行を、出目の増減で届く行として最も近い行に書きました: {rows}。"
    "出目を N 増減した表は --shift N で書き出せます")
NOT_WITH_SHIFT = define_word(
    "cli.not_with_shift", "rows the roll changed by {shift} never gives, so not in this table: {rows}",
    "出目を {shift} 増減すると出ない行で、この表にはありません: {rows}")

CANNOT_WRITE = define(
    "MPR915", "cannot write {file}: {reason}", "{file} に書き込めません: {reason}", exit_code=EXIT_STATE)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="write a roll table for BCDice or a chat palette for CCFOLIA",
        description="Write what a GM pastes into an online table: a roll table rule as a BCDice "
                    "original table (bcdice), or the ruleset's checks as a CCFOLIA chat palette "
                    "(ccfolia), with abilities filled from a characters file.")
    sub = parser.add_subparsers(dest="export_format", metavar="FORMAT", parser_class=type(parser))
    sub.required = True

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--ruleset", metavar="DIR", help="ruleset directory (default: the bundled one)")
        p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
        common(p, formats=("text",))
        p.set_defaults(handler=handle)
        return p

    p = add("bcdice", "a roll table rule as a BCDice original table")
    p.add_argument("rule", metavar="RULE_ID", help="the id of a roll table rule")
    p.add_argument("--shift", metavar="N", type=int,
                   help="the table of the roll changed by N: line n gives the row of n + N")
    p = add("ccfolia", "the ruleset's checks as a CCFOLIA chat palette")
    p.add_argument("--characters", metavar="CHARS_YAML",
                   help="characters file (chars.yaml) whose abilities fill the palette")
    p.add_argument("--character", metavar="ID", help="write only this character's palette")
    p.add_argument("--var", action="append", metavar="NAME=YAML", default=[],
                   help="an input or variable (YAML value); dotted names build mappings")


def handle(args: argparse.Namespace) -> int:
    # start-up: these modules load only when handle() runs
    from interpreter.reports.export import NO_SUCH_CHARACTER, bcdice_table, ccfolia_palette, load_characters
    from interpreter.checks.loading import load_ruleset
    from interpreter.cli._expr import parse_vars
    from interpreter.cli.output import refuse_input, refuse_special_file, write_file

    if args.output is not None:
        refuse_special_file(args.output, "--output", CANNOT_WRITE)
    ruleset = load_ruleset(args.ruleset, lang=args.lang)
    if args.export_format == "bcdice":
        table = bcdice_table(ruleset, args.rule, args.lang, shift=args.shift)
        text = table.text
        if table.outside:
            rows = ", ".join(f"{rolls} {name}" for rolls, name in table.outside)
            note = word(NOT_WITH_SHIFT, args.lang).format(shift=f"{args.shift:+d}", rows=rows) if args.shift \
                else word(OUTSIDE_DICE, args.lang).format(dice=text.splitlines()[1], rows=rows)
            print(note, file=sys.stderr)
    else:
        characters = load_characters(args.characters) if args.characters else None
        if args.character is not None:
            chosen = [c for c in characters or [] if c.id == args.character]
            if not chosen:
                raise MprError(NO_SUCH_CHARACTER, Location(path="--character"),
                               character=args.character, file=args.characters or "-",
                               known=", ".join(c.id for c in characters or []) or "-")
            characters = chosen
        if characters is not None and len(characters) > 1:
            raise MprError(SEVERAL_CHARACTERS, Location(path="--characters"), file=args.characters,
                           count=len(characters), ids=", ".join(c.id for c in characters))
        character = characters[0] if characters else None
        # The palette is pasted into a Japanese table (CCFOLIA): its labels are Japanese, as a
        # Japanese character sheet names its abilities, unless --lang asks for another language.
        palette_lang = args.lang if getattr(args, "lang_given", True) else "ja"
        text, notes = ccfolia_palette(ruleset, character, parse_vars(args.var), palette_lang,
                                      args.lang)
        for palette_note in notes:
            print((word(LEFT_OUT, args.lang) if palette_note.left_out else "") + palette_note.text,
                  file=sys.stderr)
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    reads = [*ruleset.files, *([args.characters] if getattr(args, "characters", None) else [])]
    refuse_input(args.output, "--output", reads)
    write_file(args.output, text, "--output", CANNOT_WRITE)
    return EXIT_OK
