"""Circulation of held cards (kind ``Circulation``): the executor runs a document's
``circulation`` mode (``after_minimum``, ``all_holders`` or ``ordered``, the pure functions of
``interpreter.solvers.circulation``) on a deck state given as input, and checks the document."""
from __future__ import annotations

from rules_dsl.errors import MprError, define, diagnostic, did_you_mean

from interpreter.engine.registry import Kind
from interpreter.solvers.cards import DeckSpec, DeckState, state_value
from interpreter.solvers.circulation import after_minimum, all_holders, ordered, renewed_holders

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    from rules_dsl.errors import Diagnostic

    from interpreter.engine.runner import Context
    from interpreter.ruleset.model import Rule, Ruleset

UNKNOWN_TRIGGER = define(
    "MPR614", "unknown circulation {trigger!r}: use {known}",
    "不明な循環 {trigger!r} です。{known} のいずれかを指定してください")
NOT_A_DECK = define(
    "MPR618", "{rule}: deck names {target}, a rule of kind {kind}, not a Deck",
    "{rule}: deck に指定された {target} は種別 {kind} のルールで、Deck ではありません")
NO_SUCH_PARAM = define(
    "MPR775", "{rule}: threshold.minimum names {name!r}, which is not one of its parameters{hint}",
    "{rule}: threshold.minimum の {name!r} はこのルールのパラメータにありません{hint}")

MODES = ("after_minimum", "all_holders", "ordered")


def _deck_spec(rule: Rule, ctx: Context) -> DeckSpec:
    deck_rule = ctx.ruleset.rule(rule.doc["deck"])
    return DeckSpec.from_params(deck_rule.params, deck_rule.loc("params"))


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """``mprules run`` of a circulation on the deck state given as input."""
    spec = _deck_spec(rule, ctx)
    state = DeckState.from_json(inputs.get("state") or {}, spec)
    mode = rule.doc.get("circulation")
    if mode == "after_minimum":
        threshold = rule.doc["threshold"]
        result = after_minimum(state, spec, inputs["holder"], inputs[threshold["amount"]],
                               ctx.param(rule, threshold["minimum"]), ctx.dice, threshold["amount"])
    elif mode == "all_holders":
        items = [(item, owner) for item, owner in (inputs.get("items") or {}).items()]
        holders = renewed_holders(ctx.param(rule, "renews"), inputs.get("characters") or [], items)
        result = all_holders(state, spec, holders, ctx.param(rule, "redraw_to"), ctx.dice)
    elif mode == "ordered":
        result = ordered(state, spec, inputs["holder"], ctx.dice, take_all=bool(inputs.get("all")),
                         count=inputs.get("count"), selection=inputs.get("selection", "random"),
                         cards=inputs.get("cards"), allowed=ctx.param(rule, "selection"),
                         rule_id=rule.id)
    else:
        raise MprError(UNKNOWN_TRIGGER, rule.loc("circulation"), trigger=mode, known=", ".join(MODES))
    for change in result.changes:
        ctx.trace.add("circulate", change.holder, change.to_json())
    reason = rule.doc["threshold"]["short"] if result.reason == "short" else result.reason
    return {"circulated": result.circulated, "reason": reason,
            "changes": [c.to_json() for c in result.changes], **state_value(result.state)}


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """The rule's ``deck`` names a rule of kind Deck (a missing one is reported by the reference
    check); an ``after_minimum`` rule's ``threshold.minimum`` names one of its parameters."""
    target = ruleset.rules.get(str(rule.get("deck")))
    if target is not None and target.kind != "Deck":
        yield diagnostic(NOT_A_DECK, rule.loc("deck"), lang, rule=rule.id, target=target.id,
                         kind=target.kind)
    minimum = (rule.doc.get("threshold") or {}).get("minimum")
    if rule.doc.get("circulation") == "after_minimum" and minimum not in rule.params:
        yield diagnostic(NO_SUCH_PARAM, rule.loc("threshold", "minimum"), lang, rule=rule.id,
                         name=minimum, hint=did_you_mean(str(minimum), rule.params))


KIND = Kind("Circulation", run, check=check)
