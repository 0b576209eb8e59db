"""Circulation of held cards (kind ``Circulation``): the executor runs a document's
``circulation`` mode (``after_minimum``, ``all_holders`` or ``ordered``, the pure functions of
``interpreter.solvers.circulation``) on a deck state given as input, and checks the document."""
from __future__ import annotations

from rules_dsl.errors import MprError, define, diagnostic, did_you_mean

from interpreter.engine.registry import Kind
from interpreter.solvers.cards import DeckSpec, DeckState, state_value
from interpreter.engine.constraints import condition
from interpreter.solvers.circulation import after_minimum, all_holders, card_value, ordered, renewed_holders

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    from rules_dsl.errors import Diagnostic

    from interpreter.engine.runner import Context
    from interpreter.ruleset.model import Rule, Ruleset
    from interpreter.solvers.circulation import Keep

UNKNOWN_TRIGGER = define(
    "MPR614", "unknown circulation {trigger!r}: use {known}",
    "不明な循環 {trigger!r} です。{known} のいずれかを指定してください")
NOT_A_DECK = define(
    "MPR618", "{rule}: deck names {target}, a rule of kind {kind}, not a Deck",
    "{rule}: deck に指定された {target} は種別 {kind} のルールで、Deck ではありません")
NO_SUCH_PARAM = define(
    "MPR775", "{rule}: threshold.minimum names {name!r}, which is not one of its parameters{hint}",
    "{rule}: threshold.minimum の {name!r} はこのルールのパラメータにありません{hint}")

KEEP_UNKNOWN_NAME = define(
    "MPR784", "{rule}: keep uses {name!r}; an expression of one held card sees card, holder and params{hint}",
    "{rule}: keep が {name!r} を使っています。札1枚の式が使えるのは card・holder・params です{hint}")

MODES = ("after_minimum", "all_holders", "ordered")
KEEP_NAMES = ("card", "holder", "params")  # what ``keep`` sees


def _keeper(rule: Rule, ctx: Context) -> Keep | None:
    """The document's ``keep`` as a function of one card and its holder, each decision traced."""
    if "keep" not in rule.doc:
        return None
    deck = ctx.ruleset.rule(rule.doc["deck"]).params

    def keep(card: str, holder: str) -> bool:
        env = {"card": card_value(card, deck), "holder": holder, "params": rule.params}
        return condition(rule, ("keep",), env, ctx, f"{holder} {card}")
    return keep


def _deck_spec(rule: Rule, ctx: Context) -> DeckSpec:
    deck_rule = ctx.ruleset.rule(rule.doc["deck"])
    return DeckSpec.from_params(deck_rule.params, deck_rule.loc("params"))


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """``mprules run`` of a circulation on the deck state given as input."""
    spec = _deck_spec(rule, ctx)
    state = DeckState.from_json(inputs.get("state") or {}, spec)
    mode = rule.doc.get("circulation")
    keep = _keeper(rule, ctx)
    if mode == "after_minimum":
        threshold = rule.doc["threshold"]
        result = after_minimum(state, spec, inputs["holder"], inputs[threshold["amount"]],
                               ctx.param(rule, threshold["minimum"]), ctx.dice, threshold["amount"],
                               keep=keep)
    elif mode == "all_holders":
        items = [(item, owner) for item, owner in (inputs.get("items") or {}).items()]
        holders = renewed_holders(ctx.param(rule, "renews"), inputs.get("characters") or [], items)
        result = all_holders(state, spec, holders, ctx.param(rule, "redraw_to"), ctx.dice, keep=keep)
    elif mode == "ordered":
        result = ordered(state, spec, inputs["holder"], ctx.dice, take_all=bool(inputs.get("all")),
                         count=inputs.get("count"), selection=inputs.get("selection", "random"),
                         cards=inputs.get("cards"), allowed=ctx.param(rule, "selection"),
                         rule_id=rule.id, keep=keep)
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
    if "keep" in rule.doc:
        yield from _check_keep(rule, lang)


def _check_keep(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    """``keep`` compiles and uses only ``card``, ``holder`` and ``params``."""
    # start-up: interpreter.engine.names loads only when a keep is validated
    from interpreter.engine.names import check_names, compiled

    try:
        expression = compiled(rule, ("keep",))
    except MprError as error:
        yield error.at(rule.loc("keep")).diagnostic(lang)
        return
    for name in sorted(expression.names - set(KEEP_NAMES)):
        yield diagnostic(KEEP_UNKNOWN_NAME, rule.loc("keep"), lang, rule=rule.id, name=name,
                         hint=did_you_mean(name, KEEP_NAMES))
    yield from check_names(rule, ("keep",), expression, lang)


KIND = Kind("Circulation", run, check=check)
