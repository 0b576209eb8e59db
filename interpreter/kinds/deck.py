"""The card deck (kind ``Deck``): ``mprules run`` applies draw, discard and shuffle operations to
a state of the deck whose composition the document's parameters give. The deck itself (its
state, the operations and their invariant) is ``interpreter.solvers.cards``, which the campaign
and the kinds that circulate cards share."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import Diagnostic, Location, MprError

from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.registry import Kind
from interpreter.solvers.cards import (BAD_OPERATION, DeckSpec, DeckState, discard, draw,
                                       require_invariant, shuffle_deck, state_value)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any
    from interpreter.engine.runner import Context
    from interpreter.solvers.cards import DeckView

    class DeckRun(DeckView):
        """The value of a run: the deck's state after the operations, the cards drawn, the deck's size."""

        drawn: list[str]
        composition_count: int


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> DeckRun:
    """``mprules run`` of a Deck rule: apply ``operations`` (draw/discard/shuffle) to ``state``
    (default: a fresh deck in composition order) and show the result, drawn cards included."""
    spec = DeckSpec.from_params(rule.params, rule.loc("params"))
    state = DeckState.from_json(inputs.get("state") or {}, spec)
    drawn: list[str] = []
    for number, op in enumerate(inputs.get("operations") or []):
        name, holder = op.get("op"), op.get("holder")
        if name not in ("draw", "discard", "shuffle") or (name != "shuffle" and holder is None):
            raise MprError(BAD_OPERATION, Location(path=f"operations.{number}"), op=name)
        if name == "draw":
            if holder not in state.holder_ids():
                state = state.with_held(holder, ())
            result = draw(state, spec, holder, int(op.get("count", 1)), ctx.dice)
            state = result.state
            drawn.extend(result.cards)
            ctx.trace.add("draw", holder, list(result.cards), reshuffles=result.reshuffles,
                          short=result.short)
        elif name == "discard":
            state = discard(state, holder, op.get("cards") or [])
            ctx.trace.add("discard", holder, list(op.get("cards") or []))
        else:
            state = shuffle_deck(state, ctx.dice)
            ctx.trace.add("shuffle", "deck", len(state.deck))
    require_invariant(state, spec)
    if "on_empty" in rule.params:
        ctx.param(rule, "on_empty")
    value: DeckRun = {**state_value(state), "drawn": drawn, "composition_count": len(spec.composition)}
    return value


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """The composition is usable: some cards, each name once, a known ``on_empty``."""
    try:
        DeckSpec.from_params(rule.params, rule.loc("params"))
    except MprError as error:
        yield error.diagnostic(lang)


KIND = Kind("Deck", run, check=check)
