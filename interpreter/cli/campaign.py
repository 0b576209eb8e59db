"""``mprules campaign``: keep a campaign's card deck, clock and briefings in one SQLite file
(init, show, sleep, dawn, circulate, rest, advance, brief, log, undo, export, repin, check)."""
from __future__ import annotations

import argparse
import math
import sys
import unicodedata

from rules_dsl.errors import EXIT_STATE, EXIT_USAGE, MESSAGES, Location, MprError, define, render

from interpreter.cli import common
from rules_dsl.words import bilingual, define_word, word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

BAD_CARDS = define(
    "MPR040", "--cards takes card names separated by commas, e.g. SA,H10; got {text!r}",
    "--cards にはカンマ区切りのカード名を指定してください（例: SA,H10）。指定値: {text!r}",
    exit_code=EXIT_USAGE)
BAD_SWITCH = define(
    "MPR041", "{option} takes {expected[en]}; got {text!r}",
    "{option} には{expected[ja]}を指定してください。指定値: {text!r}", exit_code=EXIT_USAGE)
CANNOT_WRITE = define(
    "MPR042", "cannot write {file}: {reason}", "{file} に書き込めません: {reason}", exit_code=EXIT_STATE)
BAD_NUMBER = define(
    "MPR053", "{option} takes {expected[en]}; got {text!r}",
    "{option} には{expected[ja]}を指定してください。指定値: {text!r}", exit_code=EXIT_USAGE)

SEED_MAX = 2**63 - 1  # the largest integer SQLite stores
HOURS = define_word("cli.hours", "a finite number of hours, e.g. 8 or 0.5", "有限の時間数（例: 8、0.5）")
SEED = define_word("cli.seed", f"a whole number from 0 to {SEED_MAX}", f"0〜{SEED_MAX} の整数")
COUNT = define_word("cli.count", "a whole number of entries, 1 or more", "1以上の件数（整数）")
MINUTES = define_word("cli.minutes", "a whole number of minutes", "分数（整数）")
ADOPT = define_word("cli.adopt", "RULE, RULE=yes or RULE=no", "RULE、RULE=yes、RULE=no のどれか")
NOT_ADOPTED = define_word("cli.not_adopted", "a rule not also adopted with --adopt",
                          "--adopt で採用していないルール")
CHECKED = define_word("cli.campaign.checked",
                      "ok: {file}: every page and all {entries} journal entries are whole ({bytes} bytes; "
                      "{characters} characters, {items} items, {cards} cards)",
                      "問題ありません: {file}: すべてのページと {entries} 件の記録が無事です（{bytes} バイト、"
                      "キャラクター {characters}、アイテム {items}、カード {cards} 枚）")
THE_CAMPAIGN = define_word("cli.the_campaign", "the campaign file (or a file of SQLite's beside it)",
                           "キャンペーンファイル（またはその隣の SQLite のファイル）")
PARAM = define_word("cli.param", "RULE.NAME=YAML", "RULE.NAME=YAML の形")
# The flag of each input of the campaign commands (the library names inputs, not flags).
FLAGS = {"force": "--force", "hours": "--hours", "minutes": "--minutes",
         "start": "--start", "all": "--all", "count": "--count", "cards": "--cards",
         "selection": "--select", "caller": "--param"}
READ_ONLY = ("show", "log", "export", "check")  # commands that never write the campaign


# The commands of ``campaign``, in the order the help lists them.
SUBCOMMANDS = ("init", "show", "sleep", "dawn", "circulate", "rest", "advance", "brief", "log", "undo",
               "export", "repin", "check")


def register(subparsers: Any, needed: tuple[str, ...] = SUBCOMMANDS) -> None:
    """The parser of ``campaign`` with those of the ``needed`` commands (all by default)."""
    parser = subparsers.add_parser("campaign", help="keep a campaign's deck, clock and briefings")
    sub = parser.add_subparsers(dest="campaign_command", metavar="COMMAND",
                                parser_class=type(parser))
    parser.set_defaults(handler=lambda args: _usage(parser))

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("file", metavar="FILE", help="the campaign file (SQLite)")
        p.add_argument("--seed", type=_seed, default=None, help="seed of the shuffles and random choices")
        common(p)
        p.set_defaults(handler=_handle, command=name)
        return p

    if "init" in needed:
        p = add("init", "create a campaign: pin the ruleset, shuffle, place and deal the cards")
        p.add_argument("--characters", required=True, metavar="CHARS_YAML")
        p.add_argument("--ruleset", default=None, metavar="DIR")
        p.add_argument("--force", action="store_true", help="replace an existing file")
        p.add_argument("--start", default=None, metavar="HH:MM", help="clock at the start (default: dawn)")
        p.add_argument("--adopt", action="append", default=[], metavar="RULE[=yes|no]",
                       help="adopt RULE in this campaign; RULE=no leaves it out; recorded in the file")
        p.add_argument("--no-adopt", action="append", default=[], metavar="RULE",
                       help="leave RULE out of this campaign; recorded in the file")
        p.add_argument("--param", action="append", default=[], metavar="RULE.NAME=YAML")
    if "show" in needed:
        add("show", "the clock, the deck, the discard pile and every holder's cards")
    if "sleep" in needed:
        p = add("sleep", "a character slept H hours")
        p.add_argument("pc", metavar="PC")
        p.add_argument("--hours", required=True, type=_number, metavar="H")
    if "dawn" in needed:
        add("dawn", "advance the clock to the next dawn")
    if "circulate" in needed:
        p = add("circulate", "discard and redraw some or all of a holder's cards")
        p.add_argument("holder", metavar="HOLDER")
        group = p.add_mutually_exclusive_group()
        group.add_argument("--all", action="store_true")
        group.add_argument("--count", type=int, default=None, metavar="N")
        p.add_argument("--select", choices=["random", "player", "gm"], default=None)
        p.add_argument("--cards", default=None, metavar="SA,H10")
    if "rest" in needed:
        p = add("rest", "take a rest package (short, medium, long)")
        p.add_argument("tier", metavar="TIER")
    if "advance" in needed:
        p = add("advance", "advance the clock, applying each dawn it crosses")
        p.add_argument("--minutes", required=True, type=_minutes, metavar="M")
    if "brief" in needed:
        p = add("brief", "record one use of a briefing option by a PC")
        p.add_argument("tier", metavar="TIER")
        p.add_argument("pc", metavar="PC")
        p.add_argument("option", metavar="OPTION")
        p.add_argument("--new", action="store_true", help="start a new briefing")
    if "log" in needed:
        p = add("log", "the journal of commands")
        p.add_argument("--last", type=_count, default=None, metavar="N")
    if "undo" in needed:
        add("undo", "revert the last command")
    if "export" in needed:
        p = add("export", "the state as YAML (in the shape of chars.yaml)")
        p.add_argument("--output", default=None, metavar="OUT")
    if "repin" in needed:
        add("repin", "pin the ruleset as it is on disk now")
    if "check" in needed:
        add("check", "check every page of the file and every journal entry (read only)")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_USAGE


def _number(text: str) -> int | float:
    """``--hours``: a finite decimal number (``nan``, ``inf``, ``.nan``, ``1e400`` refused)."""
    try:
        value = float(unicodedata.normalize("NFKC", text))
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise MprError(BAD_NUMBER, Location(path="--hours"), option="--hours",
                       expected=bilingual(HOURS), text=text)
    return int(value) if value.is_integer() else value


def _whole(text: str, option: str, expected: dict[str, str], low: int, high: int) -> int:
    digits = unicodedata.normalize("NFKC", text).strip()
    if not digits.lstrip("-").isdigit() or not digits.isascii() or not low <= int(digits) <= high:
        raise MprError(BAD_NUMBER, Location(path=option), option=option, expected=expected, text=text)
    return int(digits)


def _seed(text: str) -> int:
    """``--seed``: a whole number a campaign file can store (SQLite's 64-bit integers)."""
    return _whole(text, "--seed", bilingual(SEED), 0, SEED_MAX)


def _count(text: str) -> int:
    """``log --last N``: how many entries, 1 or more."""
    return _whole(text, "--last", bilingual(COUNT), 1, SEED_MAX)


def _minutes(text: str) -> int:
    return _whole(text, "--minutes", bilingual(MINUTES), -SEED_MAX, SEED_MAX)


def _cards(text: str | None) -> list[str] | None:
    if text is None:
        return None
    cards = [c.strip() for c in unicodedata.normalize("NFKC", text).replace("、", ",").split(",")]
    if not all(cards):
        raise MprError(BAD_CARDS, Location(path="--cards"), text=text)
    return cards


def _switches(args: argparse.Namespace) -> tuple[dict[str, bool], dict[str, dict]]:
    # start-up: interpreter.documents.loader loads only when _switches() runs
    from interpreter.documents.loader import heed, load_text, single_document

    adopt: dict[str, bool] = {}
    for text in args.adopt:
        rule, sep, value = text.partition("=")
        if not rule or (sep and value.lower() not in ("yes", "no", "true", "false")):
            raise MprError(BAD_SWITCH, Location(path="--adopt"), option="--adopt",
                           expected=bilingual(ADOPT), text=text)
        adopt[rule] = not sep or value.lower() in ("yes", "true")
    for rule in args.no_adopt:
        if adopt.get(rule, False):
            raise MprError(BAD_SWITCH, Location(path="--no-adopt"), option="--no-adopt",
                           expected=bilingual(NOT_ADOPTED), text=rule)
        adopt[rule] = False
    params: dict[str, dict] = {}
    for text in args.param:
        name, sep, value = text.partition("=")
        rule, dot, param = name.rpartition(".")
        if not sep or not dot or not rule:
            raise MprError(BAD_SWITCH, Location(path="--param"), option="--param",
                           expected=bilingual(PARAM), text=text)
        doc = single_document(load_text(value, "--param"), "--param")
        heed(doc)
        params.setdefault(rule, {})[param] = None if doc is None else doc.data
    return adopt, params


def _handle(args: argparse.Namespace) -> int:
    if args.command == "check":  # every page and entry of the file itself, never a kept state
        # start-up: the campaign layer loads only when a campaign command runs
        from interpreter.campaign.store import Store

        with Store.open(args.file, readonly=True) as store:
            return _checked(store.check(), args)
    if args.command in READ_ONLY:
        # start-up: a command that only reads loads none of the modules that change a campaign
        from interpreter.campaign import views
        from interpreter.campaign.kept import open_reading

        with open_reading(args.file) as store:
            if args.command == "show":
                result = views.show(store)
            elif args.command == "log":
                result = views.log(store, last=args.last)
                if args.format != "json":  # the text shows holders by name; the JSON stays as it is
                    result = {**result, **views.holder_names(store)}
            else:
                return _export(store, args)
        return _print(result, args)
    # start-up: the commands that change a campaign, with the rules they run
    from interpreter.campaign import commands
    from interpreter.campaign.store import Store

    if args.command == "init":
        adopt, params = _switches(args)
        result = commands.init(args.file, args.characters, ruleset=args.ruleset, seed=args.seed,
                               force=args.force, adopt=adopt, param_overrides=params,
                               start=args.start)
        return _print(result, args)
    with Store.open(args.file) as store:
        name = args.command
        if name == "sleep":
            result = commands.sleep(store, args.pc, args.hours, seed=args.seed)
        elif name == "dawn":
            result = commands.dawn(store, seed=args.seed)
        elif name == "circulate":
            result = commands.circulate(store, args.holder, take_all=args.all, count=args.count,
                                        select=args.select, cards=_cards(args.cards), seed=args.seed)
        elif name == "rest":
            result = commands.rest(store, args.tier, seed=args.seed)
        elif name == "advance":
            result = commands.advance(store, args.minutes, seed=args.seed)
        elif name == "brief":
            result = commands.brief(store, args.tier, args.pc, args.option, new=args.new,
                                    seed=args.seed)
        elif name == "undo":
            result = commands.undo(store)
        else:
            result = commands.repin(store)
        status = _print(result, args)
        # start-up: kept loads with the commands (which read through the same store)
        from interpreter.campaign.kept import keep_written

        keep_written(store)  # the state just committed, for the reading right after it
    return status


def _rendered(result: dict[str, Any], lang: str) -> dict[str, Any]:
    notes = [{"code": n["code"], "severity": MESSAGES[n["code"]].severity,
              "message": render(n["code"], n["args"], lang)} for n in result.get("notes", [])]
    return {**result, "notes": notes} if "notes" in result else result


def _print(result: dict[str, Any], args: argparse.Namespace) -> int:
    # start-up: interpreter.cli.output loads only when _print() runs
    from interpreter.cli.output import flush_stdout, is_lost_output, lost_output, print_json

    result = _rendered(result, args.lang)
    try:
        if args.format == "json":
            print_json(result)
        else:
            # start-up: interpreter.campaign.render loads only when _print() runs
            from interpreter.campaign.render import text_lines

            print("\n".join(text_lines(args.command, result, args.lang)))
        flush_stdout()
    except OSError as error:
        if not is_lost_output(error):
            raise
        # start-up: interpreter.campaign.files loads only when _print() runs
        from interpreter.campaign.files import shown_path

        committed = {"seq": result["seq"], "command": args.command, "file": shown_path(args.file)} \
            if "seq" in result else None
        raise lost_output(error, committed) from None
    return 0


def _checked(report: dict[str, Any], args: argparse.Namespace) -> int:
    """``check``: what was checked, as JSON or one line."""
    # start-up: interpreter.cli.output loads only when _checked() runs
    from interpreter.cli.output import print_json

    if args.format == "json":
        print_json(report)
    else:
        print(word(CHECKED, args.lang).format(**report))
    return 0


def _export(store: Any, args: argparse.Namespace) -> int:
    """``export``: the text of the state (kept with the state it is made of, when it is kept)."""
    # start-up: the reading commands have loaded both already
    from interpreter.campaign import views
    from interpreter.campaign.kept import Reading

    def made() -> str:
        data = views.export(store)
        if args.format == "json":
            # start-up: json loads only for the JSON export (the state is read without it)
            import json

            return json.dumps(data, ensure_ascii=False, indent=2)
        # start-up: yaml loads only when _export() runs; its texts read back alike in YAML 1.1 and 1.2
        from interpreter.documents.yaml_readings import dump

        return dump(data, allow_unicode=True, sort_keys=False, default_flow_style=None, width=100)

    text = store.text(f"export {args.format}", made) if isinstance(store, Reading) else made()
    if args.output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    # start-up: interpreter.cli.output loads only when _export() runs
    from interpreter.cli.output import refuse_input, write_file

    refuse_input(args.output, "--output", [args.file + s for s in ("", "-wal", "-shm", "-journal")],
                 bilingual(THE_CAMPAIGN))
    write_file(args.output, text, "--output", CANNOT_WRITE)
    return 0
