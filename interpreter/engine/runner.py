"""Runs one rule of a ruleset: checks adoption and inputs, calls the rule's kind, and returns
``Result(value, trace)``. Kinds reach parameters, expressions and other rules through ``Context``
so that every step is traced."""
from __future__ import annotations

import re
from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)
from collections.abc import Mapping

from rules_dsl.dice import DiceSource, SeededDice
from rules_dsl.errors import Location, MprError, define, did_you_mean

from interpreter.documents.plain import plain_copy
from interpreter.engine import registry as kinds
from interpreter.ruleset.model import Path_, Positions, Rule, Ruleset
from interpreter.engine.trace import ProbTable, Result, Step, Trace

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

RUNNING = define(
    "MPR431", "rule {rule} is already running ({chain}): rules may not use each other in a cycle",
    "ルール {rule} は実行中です（{chain}）。ルールが循環して互いを使うことはできません")
TOO_DEEP = define(
    "MPR432", "rules run inside each other more than {limit} levels deep ({chain})",
    "ルールの入れ子の実行が {limit} 段を超えました（{chain}）")


NOT_ADOPTED = define(
    "MPR402", "rule {rule} ({title}) is not adopted in this campaign/ruleset",
    "ルール {rule}（{title}）はこのキャンペーン／ルールセットで採用されていません")
UNKNOWN_KIND = define(
    "MPR403", "unknown rule kind {kind!r}{hint}", "不明なルール種別 {kind!r} です{hint}")
UNKNOWN_PARAM = define(
    "MPR404", "rule {rule} has no parameter {name!r}{hint}",
    "ルール {rule} にパラメータ {name!r} はありません{hint}")
NO_DISTRIBUTION = define(
    "MPR405", "rule {rule} (kind {kind}) has no probability distribution to show",
    "ルール {rule}（種別 {kind}）には確率分布がありません")


def guard(running: list[str], rule_id: str) -> None:
    """Refuse to run ``rule_id`` inside the runs ``running`` when it is one of them (or when
    the runs are nested too deep)."""
    chain = " -> ".join([*running, rule_id])
    if rule_id in running:
        raise MprError(RUNNING, Location(path=rule_id), rule=rule_id, chain=chain)
    if len(running) >= 4:  # nested at all: the limit is read only then (start-up)
        limit = max_nested_runs()
        if len(running) >= limit:
            raise MprError(TOO_DEEP, Location(path=rule_id), limit=limit, chain=chain)


def max_nested_runs() -> int:
    """How deep rules may run inside each other: four times as deep as variants may layer."""
    # start-up: the ruleset limits load only for runs nested four deep or more
    from interpreter.ruleset.limits import MAX_VARIANT_LAYERS

    return 4 * MAX_VARIANT_LAYERS


class Context(Record):
    """What a kind may use while it runs: the ruleset, the dice, the trace, the language, and the
    rules running (outermost first) so that a rule never runs inside itself."""

    ruleset: Ruleset
    dice: DiceSource
    trace: Trace = field(default_factory=Trace)
    lang: str = "en"
    depth: int = 0
    running: list[str] = field(default_factory=list)  # the rules running, outermost first

    def param(self, rule: Rule, name: str) -> Any:
        """A parameter's effective value, traced with the layer it came from."""
        if name not in rule.params:
            raise MprError(UNKNOWN_PARAM, rule.loc("params"), rule=rule.id, name=name,
                           hint=did_you_mean(name, rule.params))
        value = rule.params[name]
        self.trace.add("param", f"{rule.id}.{name}", value, layer=rule.param_layers.get(name, rule.layer))
        return value

    def evaluate(self, rule: Rule, path: Path_, env: Mapping[str, Any],
                 label: str | None = None) -> Any:
        """Evaluate the expression at ``rule.doc[path]`` in ``env``, tracing it and its dice."""
        expression = rule.expression(*path)
        mark = self.dice.mark()
        value = expression.evaluate(env, self.dice)
        dice = [d.value for d in self.dice.since(mark)]
        detail: dict[str, Any] = {"expr": expression.text}
        if dice:
            detail["dice"] = dice
        self.trace.add("expr", label or expression.text, value, **detail)
        return value

    def run(self, rule_id: str, inputs: Mapping[str, Any]) -> Any:
        """Run another rule of the same ruleset inside this one (traced as a nested step)."""

        rule = self.ruleset.rule(rule_id)
        _require_adopted(rule, self.lang)
        guard(self.running, rule_id)
        self.running.append(rule_id)
        try:
            with self.trace.group("rule", rule_id, source=rule.source) as step:
                value = _filled(rule, run_kind(_kind_of(rule), rule, _with_defaults(rule, inputs), self), self.lang)
                step.value = value
        finally:
            self.running.pop()
        _annotate_rows(rule, step)
        return value


def run_kind(kind: kinds.Kind, rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> Any:
    """The kind's value for ``inputs``, then the document's ``constraints`` over the inputs, the
    parameters and that value (unless the kind checks its constraints itself)."""
    value = kind.run(rule, inputs, ctx)
    if rule.doc.get("constraints") and not kind.own_constraints:
        # start-up: constraints are read only when a document writes some
        from interpreter.engine.constraints import apply

        value = apply(rule, inputs, value, ctx)
    return value


def _kind_of(rule: Rule) -> kinds.Kind:
    kind = kinds.get(rule.kind)
    if kind is None:
        raise MprError(UNKNOWN_KIND, rule.loc("kind"), kind=rule.kind,
                       hint=did_you_mean(rule.kind, kinds.registry()))
    return kind


def _require_adopted(rule: Rule, lang: str) -> None:
    if not rule.adopted:
        raise MprError(NOT_ADOPTED, Location(path=rule.id), rule=rule.id, title=rule.title(lang))


def _filled(rule: Rule, value: Any, lang: str) -> Any:
    """The rule's value with the ``{params.NAME}`` of the texts inside it filled (a row's text)."""
    # start-up: interpreter.ruleset.texts loads only when _filled() runs
    from interpreter.ruleset.texts import render_value

    return render_value(rule, value, lang)


def _annotate_rows(rule: Rule, step: Step) -> None:
    """Name the layer of each row in the trace (interpreter.ruleset.variants) and fill the parameters
    into the texts its steps show (interpreter.ruleset.texts)."""
    # start-up: interpreter.ruleset.texts loads only when _annotate_rows() runs
    from interpreter.ruleset.texts import render_steps

    for child in step.children:  # as ruleset.variants.annotate_rows, without loading the merge engine
        if child.kind == "row" and child.label in rule.row_layers and "layer" not in child.detail:
            child.detail["layer"] = rule.row_layers[child.label]
    render_steps(rule, step.children)


# A field path's parts (``plan.a[6]``): compiled by re's cache the first time an error is located,
# not when the module loads (every run loads it; start-up).
_PATH_PART = r"([^.\[\]]+)|\[(\d+)\]"


def locate_in_input(error: MprError, inputs: Mapping[str, Any], positions: Positions | None,
                    file: str | None) -> MprError:
    """Give an error that names only a field path of the input (``plan.a[6]``) the file
    position of that field in the input file, when the input came from one."""
    loc = error.loc
    if loc is None or loc.path is None or loc.line is not None or not positions:
        return error
    path: Path_ = tuple(
        int(index) if index else name for name, index in re.findall(_PATH_PART, loc.path))
    if not path or path[0] not in inputs:
        return error
    probe = path
    while probe not in positions and probe:
        probe = probe[:-1]
    if probe in positions:
        where = positions[probe]
        error.loc = Location(where[0] or file, where[1], where[2], loc.path)
    return error


def _with_defaults(rule: Rule, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The input with the ``default`` of every property the rule's ``inputs`` schema declares
    filled in where it is missing, at every level of nested objects and in every list item."""
    filled: dict[str, Any] = _fill_defaults(rule.doc.get("inputs") or {}, dict(inputs))
    return filled


def _fill_defaults(schema: Any, value: Any) -> Any:
    items = schema.get("items") if isinstance(schema, dict) else None
    if isinstance(value, list) and isinstance(items, dict):
        return [_fill_defaults(items, item) for item in value]
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(value, dict) or not isinstance(props, dict):
        return value
    filled = dict(value)
    for name, sub in props.items():
        if not isinstance(sub, dict):
            continue
        if name not in filled and "default" in sub:
            filled[name] = plain_copy(sub["default"])
        if name in filled:
            filled[name] = _fill_defaults(sub, filled[name])
    return filled


def run(ruleset: Ruleset, rule_id: str, inputs: Mapping[str, Any] | None = None,
        dice: DiceSource | None = None, *, lang: str = "en",
        input_positions: Positions | None = None, input_file: str | None = None,
        check_input: bool = True) -> Result:
    """Run ``rule_id`` on ``inputs``: the value and its trace, or an ``MprError``. A caller that
    built the input itself from data it checked (a campaign command) may leave out the check of
    the input against the rule's ``inputs`` schema (``check_input=False``), and its cost."""
    rule = ruleset.rule(rule_id)
    _require_adopted(rule, lang)
    kind = _kind_of(rule)
    inputs = inputs or {}
    if check_input:
        # start-up: interpreter.engine.inputs loads only when an input is checked
        from interpreter.engine.inputs import check_inputs

        check_inputs(rule, inputs, positions=input_positions, file=input_file, lang=lang)
    dice = dice or SeededDice()
    ctx = Context(ruleset, dice, Trace(), lang, running=[rule.id])
    try:
        with ctx.trace.group("rule", rule.id, source=rule.source, layer=rule.layer) as step:
            value = _filled(rule, run_kind(kind, rule, _with_defaults(rule, inputs), ctx), lang)
            step.value = value
    except MprError as error:
        raise locate_in_input(error, inputs, input_positions, input_file) from None
    _annotate_rows(rule, step)
    return Result(rule.id, value, ctx.trace.root, getattr(dice, "seed", None), dice.values)


def distribution(ruleset: Ruleset, rule_id: str, inputs: Mapping[str, Any] | None = None, *,
                 lang: str = "en") -> list[ProbTable]:
    """The exact distribution of a rule's outcome, for kinds that have one."""
    # start-up: interpreter.engine.inputs loads only when distribution() runs
    from interpreter.engine.inputs import check_inputs

    rule = ruleset.rule(rule_id)
    _require_adopted(rule, lang)
    kind = _kind_of(rule)
    if kind.distribution is None:
        raise MprError(NO_DISTRIBUTION, Location(path=rule_id), rule=rule_id, kind=rule.kind)
    inputs = inputs or {}
    check_inputs(rule, inputs, lang=lang)
    ctx = Context(ruleset, SeededDice(0), Trace(), lang, running=[rule.id])
    inputs = _with_defaults(rule, inputs)
    notes: list[str] = []
    if rule.doc.get("constraints") and not kind.own_constraints:
        # start-up: constraints are read only when a document writes some
        from interpreter.engine.constraints import before_odds

        notes = before_odds(rule, inputs, ctx)
    tables = _filled_tables(rule, kind.distribution(rule, inputs, ctx), lang)
    for table in tables if notes else ():
        table.note = "\n".join([table.note, *notes] if table.note else notes)
    return tables


def _filled_tables(rule: Rule, tables: list[ProbTable], lang: str) -> list[ProbTable]:
    """Distributions whose titles and outcome labels have the rule's ``{params.NAME}`` filled."""
    # start-up: interpreter.ruleset.texts loads only when _filled_tables() runs
    from interpreter.ruleset.texts import fill_text

    filled: dict[str, str] = {}  # each text once: a long table repeats few

    def fill(label: str) -> str:
        if "{" not in label:
            return label  # no placeholder: nothing to fill
        done = filled.get(label)
        if done is None:
            done = filled[label] = fill_text(rule, label, lang)
        return done

    for table in tables:
        table.title = fill_text(rule, table.title, lang)
        table.relabel(fill)
    return tables
