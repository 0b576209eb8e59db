"""``mprules run RULE_ID``: run one rule of a ruleset on an input file, with parameters overridden
for this run (``--param``) and seeded or scripted dice; prints the value and its trace."""
from __future__ import annotations

import sys

from rules_dsl.errors import EXIT_OK, EXIT_USAGE, Location, MprError, define
from interpreter.cli import common  # the parent package, already loaded

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

BAD_PARAM = define(
    "MPR021", "--param takes RULE_ID.NAME=YAML, e.g. my.table.rounding=ceil; got {text!r}",
    "--param は RULE_ID.NAME=YAML の形で指定してください（例: my.table.rounding=ceil）。指定値: {text!r}",
    exit_code=EXIT_USAGE)
BAD_INPUT_DOCUMENT = define(
    "MPR022", "the input must be one YAML mapping of names to values, got {got}",
    "入力は名前と値の YAML マッピング1つでなければなりません（{got}でした）")


PARAM = "--param"  # the flag of parameter overrides: the name of their layer in findings and traces

def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="run one rule on an input and explain the result",
        description="Run one rule of a ruleset on an input (YAML) and show its value and trace.")
    parser.add_argument("rule", metavar="RULE_ID")
    parser.add_argument("--ruleset", metavar="DIR", help="ruleset directory (default: the bundled one)")
    parser.add_argument("--input", metavar="FILE", help="the input as a YAML file, or - for stdin")
    parser.add_argument("--param", action="append", default=[], metavar="RULE_ID.NAME=YAML",
                        help="override one parameter for this run (repeatable)")
    parser.add_argument("--seed", type=int, metavar="N", help="roll the dice with this seed")
    parser.add_argument("--dice", metavar="LIST", help="the dice rolled at the table, e.g. 3,4")
    common(parser)
    parser.set_defaults(handler=handle)


def parse_params(texts: list[str]) -> dict[str, dict[str, Any]]:
    """``["a.b.name=3"]`` -> ``{"a.b": {"name": Written(3)}}``: each value read by the safe YAML
    loader (``interpreter.checks.param_schema.parse_param_value``), checked later against its schema."""
    if not texts:
        return {}
    # start-up: interpreter.checks.param_schema loads only when parse_params() runs
    from interpreter.checks.param_schema import parse_param_value

    overrides: dict[str, dict[str, Any]] = {}
    for text in texts:
        target, sep, raw = text.partition("=")
        rule_id, dot, name = target.strip().rpartition(".")
        if not sep or not dot or not rule_id or not name:
            raise MprError(BAD_PARAM, Location(path=PARAM), text=text)
        overrides.setdefault(rule_id, {})[name] = parse_param_value(raw, target.strip(), PARAM)
    return overrides


def read_input(name: str | None) -> tuple[Any, dict, str | None, dict]:
    """The input data, its positions, its file name (``-``: standard input) and its written
    scalars (for the "write it in quotes" hint)."""
    # start-up: rules_dsl.errors, interpreter.documents.limits load only when read_input() runs
    from rules_dsl.errors import Location, MprError
    from interpreter.documents.limits import MAX_INPUT_FILE_BYTES

    if name is None:
        return {}, {}, None, {}
    # start-up: interpreter.documents.kept_yaml loads only when there is an input to read (PyYAML
    # only for a text it has not kept)
    from interpreter.documents.kept_yaml import load_file, load_text

    if name == "-":
        # start-up: the parent package is loaded already (it runs every command)
        from interpreter.cli import CLOSED_STDIN
        from interpreter.cli._expr import INPUT_UNREADABLE

        if sys.stdin is None or CLOSED_STDIN[0]:
            raise MprError(INPUT_UNREADABLE, Location(file="-"), file="-", reason="standard input is closed")
        stream = getattr(sys.stdin, "buffer", sys.stdin)  # bytes from a real stdin
        data = stream.read(MAX_INPUT_FILE_BYTES + 1)
        if len(data) > MAX_INPUT_FILE_BYTES:  # never parse a truncated input
            # start-up: interpreter.documents.loader loads only for an input too large to read
            from interpreter.documents.loader import TOO_LARGE

            raise MprError(TOO_LARGE, Location("<stdin>", 1, 1), size=f"> {MAX_INPUT_FILE_BYTES}",
                           limit=MAX_INPUT_FILE_BYTES)
        docs, file = load_text(data, "<stdin>"), "<stdin>"
    else:
        docs, file = load_file(name, max_bytes=MAX_INPUT_FILE_BYTES), name
    if not docs:
        return {}, {}, file, {}
    if len(docs) > 1 or not isinstance(docs[0].data, dict):
        # start-up: the words of a refusal load only when an input is refused
        from rules_dsl.errors import Phrase
        from interpreter.cli._expr import kind_of

        got = Phrase("{n} documents", "{n} 個の文書", n=len(docs)) if len(docs) > 1 else kind_of(docs[0].data)
        raise MprError(BAD_INPUT_DOCUMENT, Location(file, docs[0].line, 1), got=got)
    if docs[0].readings:  # values other YAML readers read differently, to be shown
        # start-up: interpreter.documents.loader is loaded already when a document has readings
        from interpreter.documents.loader import heed

        heed(docs[0])
    return docs[0].data, docs[0].positions, file, docs[0].texts


def result_labels(ruleset: Any, rule_id: str) -> dict[str, Any]:
    """How the names of a rule's result are written: the rule's ``labels``, over the character
    sheet's names of abilities (``parameters.sheet.abilities``)."""
    sheet = ruleset.parameters.get("sheet") if isinstance(ruleset.parameters, dict) else None
    abilities = sheet.get("abilities") if isinstance(sheet, dict) else None
    try:
        rule = ruleset.rule(rule_id)  # that rule alone: the others stay unread in the cache
    except MprError:
        rule = None
    own = rule.doc.get("labels") if rule is not None else None
    return {**(abilities if isinstance(abilities, dict) else {}),
            **(own if isinstance(own, dict) else {})}


def _label(labels: dict[str, Any], name: Any, lang: str) -> str:
    """``name`` as the labels write it in ``lang`` (the name itself when they do not)."""
    # start-up: rules_dsl.words loads only when a result is shown
    from rules_dsl.words import localized

    label = labels.get(name) if isinstance(name, str) else None
    return str(localized(label, lang) or name) if isinstance(label, dict) else str(name)


def _labelled(labels: dict[str, Any], item: Any, lang: str) -> Any:
    if isinstance(item, dict):
        return {_label(labels, k, lang): _labelled(labels, v, lang) for k, v in item.items()}
    if isinstance(item, list):
        return [_labelled(labels, v, lang) for v in item]
    return _label(labels, item, lang) if isinstance(item, str) and item in labels else item


def _shown(labels: dict[str, Any], item: Any, lang: str) -> str:
    """One value of the result on its line, its names (keys, texts) as the labels write them,
    as YAML on one line."""
    shown = _labelled(labels, item, lang)
    if isinstance(shown, str) and shown != item:
        return shown
    if shown is None or shown is True or shown is False or type(shown) is int:
        return shown_value(shown)
    # start-up: the one-line writer is small; PyYAML loads only for what it cannot be sure of
    from interpreter.cli._flow import one_line

    written = one_line(shown)
    if written is not None:
        return written.strip()  # as PyYAML's text is stripped below
    return flow_dump(shown)


def flow_dump(value: Any) -> str:
    """``value`` on one line as PyYAML (``yaml_readings.dump``) writes it in flow style."""
    # start-up: yaml loads only for a value the one-line writer is not sure of
    from interpreter.documents.yaml_readings import dump

    return str(dump(value, allow_unicode=True, default_flow_style=True, sort_keys=False, width=10 ** 6)
               ).removesuffix("\n...\n").strip()


def shown_value(value: Any) -> str:
    """A run's value as YAML: a whole number, true, false or null written as PyYAML writes it,
    without loading PyYAML's writer; anything else written to read back alike in YAML 1.1 and
    1.2 (``yaml_readings.dump``)."""
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if type(value) is int:
        return str(value)
    # start-up: yaml loads only for a value that is not a whole number, true, false or null
    from interpreter.documents.yaml_readings import dump

    if isinstance(value, (dict, list)) and value:
        return str(dump(value, allow_unicode=True, sort_keys=False, width=100,
                        default_flow_style=None).rstrip())
    return str(dump(value, allow_unicode=True).removesuffix("\n...\n").rstrip())


def load(path: str | None, overrides: dict[str, dict[str, Any]], lang: str) -> Any:
    """The ruleset at ``path`` with the parameters given for this run: from the cache when it
    holds it, without loading what reads and checks a ruleset (``checks.loading``) at all."""
    # start-up: the ruleset cache is all a ruleset kept in it needs
    from interpreter.ruleset.cache import load_kept

    def read() -> Any:
        # start-up: what reads and checks a ruleset loads only for one the cache does not hold
        from interpreter.checks.loading import load_ruleset

        return load_ruleset(path, param_overrides=overrides, lang=lang, given_as=PARAM)

    return load_kept(path, overrides, None, read, PARAM)


def handle(args: argparse.Namespace) -> int:
    # start-up: interpreter.cli._dice, rules_dsl.dice, rules_dsl.errors load only when handle() runs
    from interpreter.cli._dice import source_from_args
    from rules_dsl.dice import SCRIPT_UNUSED, ScriptedDice
    from rules_dsl.errors import MprError

    # start-up: these modules load only when handle() runs
    from interpreter.engine import runner as engine
    from interpreter.engine.inputs import INVALID_INPUT, check_inputs
    from interpreter.engine.trace import render_tree
    from interpreter.cli.output import print_heard, print_json, refuse_huge_output

    overrides = parse_params(args.param)
    data, positions, file, texts = read_input(args.input)
    print_heard(args.lang)  # before the result: the input's values read differently elsewhere
    dice = source_from_args(args.seed, args.dice)
    ruleset = load(args.ruleset, overrides, args.lang)
    if overrides:
        # start-up: interpreter.checks.param_schema loads only for parameters given (parse_params)
        from interpreter.checks.param_schema import caller_notes

        for note in caller_notes(ruleset, overrides, args.lang, PARAM):
            print(f"{note.path}: {note.code} {note.message}", file=sys.stderr)
    try:
        result = engine.run(ruleset, args.rule, data, dice, lang=args.lang,
                            input_positions=positions, input_file=file)
    except MprError as error:
        if error.code == INVALID_INPUT and texts:  # again, with the written text of each value
            check_inputs(ruleset.rule(args.rule), data, positions, file, args.lang, texts)
        raise
    if isinstance(dice, ScriptedDice) and dice.unused:
        raise MprError(SCRIPT_UNUSED, dice.loc, unused=len(dice.unused),  # as eval and check: exit 1
                       values=",".join(map(str, dice.unused)), used=len(dice.rolled))
    if args.format == "json":
        print_json(result.to_json())
    else:
        # start-up: rules_dsl.plain loads only when handle() runs
        from rules_dsl.plain import jsonable

        value = jsonable(result.value)
        refuse_huge_output(value)
        if isinstance(value, dict) and value:
            labels = result_labels(ruleset, args.rule)
            for key, item in value.items():
                print(f"{_label(labels, key, args.lang)}: {_shown(labels, item, args.lang)}")
        else:
            print(shown_value(value))
        print()
        for line in render_tree(result.trace, values=False, lang=args.lang):
            print(line)
    return EXIT_OK
