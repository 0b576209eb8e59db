"""Runs one rule of a ruleset: checks adoption and inputs, calls the rule's kind, and returns
``Result(value, trace)``. Kinds reach parameters, expressions and other rules through ``Context``
so that every step is traced."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from rules_dsl.dice import DiceSource, SeededDice
from rules_dsl.errors import Location, MprError, define

from . import kinds
from .model import Rule, Ruleset
from .trace import Result, Trace

UNKNOWN_RULE = define(
    "MPR401", "no rule {rule!r} in ruleset {ruleset}{hint}",
    "ルールセット {ruleset} にルール {rule!r} はありません{hint}")
NOT_ADOPTED = define(
    "MPR402", "rule {rule} ({title}) is not adopted in this campaign/ruleset (R0)",
    "ルール {rule}（{title}）はこのキャンペーン／ルールセットで採用されていません（R0）")
UNKNOWN_KIND = define(
    "MPR403", "unknown rule kind {kind!r}{hint}", "不明なルール種別 {kind!r} です{hint}")
UNKNOWN_PARAM = define(
    "MPR404", "rule {rule} has no parameter {name!r}{hint}",
    "ルール {rule} にパラメータ {name!r} はありません{hint}")
NO_DISTRIBUTION = define(
    "MPR405", "rule {rule} (kind {kind}) has no probability distribution to show",
    "ルール {rule}（種別 {kind}）には確率分布がありません")


def did_you_mean(name: str, options: Any, lang: str = "en") -> str:
    """`` (did you mean 'x'?)`` for the nearest option, or an empty string."""
    close = difflib.get_close_matches(str(name), [str(o) for o in options], n=1, cutoff=0.6)
    if not close:
        return ""
    return f" (did you mean {close[0]!r}?)"


def unknown_rule(ruleset: Ruleset, rule_id: str) -> MprError:
    return MprError(UNKNOWN_RULE, Location(path=rule_id), rule=rule_id, ruleset=ruleset.id,
                    hint=did_you_mean(rule_id, ruleset.rules))


@dataclass
class Context:
    """What a kind's executor may use: the ruleset, the dice, the trace, the language."""

    ruleset: Ruleset
    dice: DiceSource
    trace: Trace = field(default_factory=Trace)
    lang: str = "en"
    depth: int = 0

    def param(self, rule: Rule, name: str) -> Any:
        """A parameter's effective value, traced with the layer it came from."""
        if name not in rule.params:
            raise MprError(UNKNOWN_PARAM, rule.loc("params"), rule=rule.id, name=name,
                           hint=did_you_mean(name, rule.params))
        value = rule.params[name]
        self.trace.add("param", f"{rule.id}.{name}", value, layer=rule.param_layers.get(name, rule.layer))
        return value

    def evaluate(self, rule: Rule, path: tuple[str | int, ...], env: dict[str, Any],
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

    def run(self, rule_id: str, inputs: dict[str, Any]) -> Any:
        """Run another rule of the same ruleset inside this one (traced as a nested step)."""
        rule = self.ruleset.rule(rule_id)
        _require_adopted(rule, self.lang)
        with self.trace.group("rule", rule_id, source=rule.source) as step:
            value = _kind_of(rule).run(rule, _with_defaults(rule, inputs), self)
            step.value = value
        _annotate_rows(rule, step)
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


def _annotate_rows(rule: Rule, step: Any) -> None:
    """Name the layer of each row in the trace (interpreter.variants)."""
    from .variants import annotate_rows

    annotate_rows(rule, step.children)


def _with_defaults(rule: Rule, inputs: dict[str, Any]) -> dict[str, Any]:
    """Top-level input defaults declared in the rule's ``inputs`` schema, filled in."""
    props = (rule.doc.get("inputs") or {}).get("properties") or {}
    filled = dict(inputs)
    for name, schema in props.items():
        if name not in filled and isinstance(schema, dict) and "default" in schema:
            filled[name] = schema["default"]
    return filled


def run(ruleset: Ruleset, rule_id: str, inputs: dict[str, Any] | None = None,
        dice: DiceSource | None = None, *, lang: str = "en",
        input_positions: dict | None = None, input_file: str | None = None) -> Result:
    """Run ``rule_id`` on ``inputs``: the value and its trace, or an ``MprError``."""
    from .inputs import check_inputs

    rule = ruleset.rule(rule_id)
    _require_adopted(rule, lang)
    kind = _kind_of(rule)
    inputs = inputs or {}
    check_inputs(rule, inputs, positions=input_positions, file=input_file, lang=lang)
    dice = dice or SeededDice()
    ctx = Context(ruleset, dice, Trace(), lang)
    with ctx.trace.group("rule", rule.id, source=rule.source, layer=rule.layer) as step:
        value = kind.run(rule, _with_defaults(rule, inputs), ctx)
        step.value = value
    _annotate_rows(rule, step)
    return Result(rule.id, value, ctx.trace.root, getattr(dice, "seed", None), dice.values)


def distribution(ruleset: Ruleset, rule_id: str, inputs: dict[str, Any] | None = None, *,
                 lang: str = "en") -> Any:
    """The exact distribution of a rule's outcome, for kinds that have one."""
    from .inputs import check_inputs

    rule = ruleset.rule(rule_id)
    _require_adopted(rule, lang)
    kind = _kind_of(rule)
    if kind.distribution is None:
        raise MprError(NO_DISTRIBUTION, Location(path=rule_id), rule=rule_id, kind=rule.kind)
    inputs = inputs or {}
    check_inputs(rule, inputs, lang=lang)
    ctx = Context(ruleset, SeededDice(0), Trace(), lang)
    return kind.distribution(rule, _with_defaults(rule, inputs), ctx)
