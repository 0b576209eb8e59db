"""Circulation of magic cards (kind ``Circulation``, R1-R3): sleep, dawn and special circumstances
discard held cards and draw as many from the deck (discard first, then draw), as pure functions
over a ``DeckState``; the executor runs them on a state given as input."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules_dsl.dice import DiceSource
from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic

from . import Kind
from .deck import NEGATIVE_COUNT, TOO_MANY, DeckSpec, DeckState, discard, draw, state_value

NEGATIVE_HOURS = define(
    "MPR610", "hours of sleep cannot be negative: {hours}", "睡眠時間に負の値は指定できません: {hours}")
SELECTION_NOT_ALLOWED = define(
    "MPR611", "selection {selection!r} is not allowed by {rule} (allowed: {allowed})",
    "選択方法 {selection!r} は {rule} で認められていません（認められている方法: {allowed}）")
CARDS_NEEDED = define(
    "MPR612", "selection {selection} needs the chosen cards (--cards), {count} of them",
    "選択方法 {selection} では選んだカード（--cards）を {count} 枚指定してください")
ALL_OR_COUNT = define(
    "MPR613", "say which cards to circulate: all of them (--all), or some (--count N, --cards, or both); "
              "--all takes neither of the others",
    "循環させるカードを指定してください: すべて（--all）か、一部（--count N、--cards、またはその両方）です。"
    "--all はほかの2つと一緒には指定できません")
UNKNOWN_TRIGGER = define(
    "MPR614", "unknown circulation {trigger!r}: use sleep, dawn or special",
    "不明な循環 {trigger!r} です。sleep、dawn、special のいずれかを指定してください")
COUNT_MISMATCH = define(
    "MPR615", "--count is {count} but {given} cards were chosen",
    "--count は {count} ですが、選ばれたカードは {given} 枚です")
BAD_REDRAW_TO = define(
    "MPR616", "redraw_to must be holder or owner_hand, not {value!r}",
    "redraw_to には holder か owner_hand を指定してください（指定値: {value!r}）")
OWNER_NOT_A_HOLDER = define(
    "MPR682", "{item}'s owner {owner!r} is not a holder of its own (an item or unknown): its cards have nowhere to go",
    "{item} の持ち主 {owner!r} は手札を持つ保持者ではありません（アイテムか、存在しません）。カードの行き先がありません")
CARDS_WITH_RANDOM = define(
    "MPR617", "random selection draws the cards itself: give --cards only with --select player or gm",
    "ランダム選択ではカードは自動で選ばれます。--cards は --select player か gm と一緒に指定してください")
NOT_A_DECK = define(
    "MPR618", "{rule}: deck names {target}, a rule of kind {kind}, not a Deck",
    "{rule}: deck に指定された {target} は種別 {kind} のルールで、Deck ではありません")

SELECTIONS = ("random", "player", "gm")
REDRAW_TO = ("holder", "owner_hand")


@dataclass(frozen=True)
class Change:
    """One holder's circulation: the cards it put out, and the cards drawn into ``to``."""

    holder: str
    out: tuple[str, ...]
    to: str
    drawn: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"holder": self.holder, "out": list(self.out), "to": self.to, "in": list(self.drawn)}


@dataclass(frozen=True)
class Circulated:
    """What a circulation did: the new state, the changes, and why nothing happened if so."""

    state: DeckState
    changes: tuple[Change, ...] = ()
    reason: str | None = None  # "short_sleep", "no_cards", "none_chosen" when nothing circulated
    reshuffles: int = 0

    @property
    def circulated(self) -> bool:
        return bool(self.changes)


def circulate(state: DeckState, spec: DeckSpec, moves: Sequence[tuple[str, Sequence[str], str]],
              dice: DiceSource) -> Circulated:
    """Each ``(holder, cards, to)``: every holder discards its cards first, then each draws as many
    into ``to`` (itself, or an owner's hand), in the order given."""
    for holder, cards, _ in moves:
        state = discard(state, holder, cards)
    changes, reshuffles = [], 0
    for holder, cards, to in moves:
        if to not in state.holder_ids():
            state = state.with_held(to, ())
        result = draw(state, spec, to, len(cards), dice)
        state, reshuffles = result.state, reshuffles + result.reshuffles
        changes.append(Change(holder, tuple(cards), to, result.cards))
    return Circulated(state, tuple(c for c in changes if c.out), None if changes else "no_cards",
                      reshuffles)


def sleep(state: DeckState, spec: DeckSpec, holder: str, hours: int | Fraction,
          min_sleep_hours: int | Fraction, dice: DiceSource) -> Circulated:
    """R1: after ``min_sleep_hours`` or more of sleep, all cards held are discarded and redrawn."""
    if hours < 0:
        raise MprError(NEGATIVE_HOURS, Location(path="hours"), hours=hours)
    held = state.held(holder)
    if hours < min_sleep_hours:
        return Circulated(state, reason="short_sleep")
    if not held:
        return Circulated(state, reason="no_cards")
    return circulate(state, spec, [(holder, held, holder)], dice)


def dawn(state: DeckState, spec: DeckSpec, items: Sequence[tuple[str, str]], redraw_to: str,
         dice: DiceSource) -> Circulated:
    """R2: every item (``(item, owner)``) discards all its cards; then each draws as many, into the
    item itself (``holder``) or into its owner's hand (``owner_hand``)."""
    if redraw_to not in REDRAW_TO:
        raise MprError(BAD_REDRAW_TO, Location(path="redraw_to"), value=redraw_to)
    if redraw_to == "owner_hand":
        hands = set(state.holder_ids()) - {item for item, _ in items}
        for item, owner in items:
            if owner not in hands:
                raise MprError(OWNER_NOT_A_HOLDER, Location(path=item), item=item, owner=owner)
    moves = [(item, state.held(item), item if redraw_to == "holder" else owner)
             for item, owner in items]
    moves = [move for move in moves if move[1]]
    if not moves:
        return Circulated(state, reason="no_cards")
    return circulate(state, spec, moves, dice)


def special(state: DeckState, spec: DeckSpec, holder: str, dice: DiceSource, *,
            take_all: bool = False, count: int | None = None, selection: str = "random",
            cards: Sequence[str] | None = None, allowed: Sequence[str] = SELECTIONS,
            rule_id: str = "circulation.special") -> Circulated:
    """R3: the GM orders all or ``count`` of a holder's cards discarded and redrawn; a part is
    chosen at random (by ``dice``) or given (``cards``, chosen by the player or the GM)."""
    held = state.held(holder)
    if take_all:
        if count is not None or cards:
            raise MprError(ALL_OR_COUNT, Location(path="--all/--count"))
        chosen: Sequence[str] = held
    else:
        if count is None and not cards:
            raise MprError(ALL_OR_COUNT, Location(path="--all/--count"))
        if selection not in allowed:
            raise MprError(SELECTION_NOT_ALLOWED, Location(path="--select"), selection=selection,
                           rule=rule_id, allowed=", ".join(allowed))
        if count is not None and count < 0:
            raise MprError(NEGATIVE_COUNT, Location(path="--count"), count=count)
        chosen = _chosen(held, holder, count, selection, cards, dice)
    if not chosen:
        return Circulated(state, reason="none_chosen" if held else "no_cards")
    return circulate(state, spec, [(holder, tuple(chosen), holder)], dice)


def _chosen(held: Sequence[str], holder: str, count: int | None, selection: str,
            cards: Sequence[str] | None, dice: DiceSource) -> list[str]:
    """The part of ``held`` to circulate: drawn at random, or the cards the player or GM chose."""
    if selection == "random":
        if cards:
            raise MprError(CARDS_WITH_RANDOM, Location(path="--cards"))
        if count > len(held):
            raise MprError(TOO_MANY, Location(path="--count"), holder=holder, held=len(held),
                           wanted=count)
        return dice.choose(list(held), count)
    if not cards:
        raise MprError(CARDS_NEEDED, Location(path="--cards"), selection=selection, count=count)
    if count is not None and count != len(cards):
        raise MprError(COUNT_MISMATCH, Location(path="--cards"), count=count, given=len(cards))
    if len(cards) > len(held):
        raise MprError(TOO_MANY, Location(path="--cards"), holder=holder, held=len(held),
                       wanted=len(cards))
    return list(cards)


def _deck_spec(rule: Any, ctx: Any) -> DeckSpec:
    deck_rule = ctx.ruleset.rule(rule.doc.get("deck", "cards.deck"))
    return DeckSpec.from_params(deck_rule.params, deck_rule.loc("params"))


def run(rule: Any, inputs: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """``mprules run circulation.sleep|dawn|special`` on the deck state given as input."""
    spec = _deck_spec(rule, ctx)
    state = DeckState.from_json(inputs.get("state") or {}, spec)
    trigger = rule.doc.get("circulation")
    if trigger == "sleep":
        result = sleep(state, spec, inputs["holder"], inputs["hours"],
                       ctx.param(rule, "min_sleep_hours"), ctx.dice)
    elif trigger == "dawn":
        items = [(item, owner) for item, owner in (inputs.get("items") or {}).items()]
        result = dawn(state, spec, items, ctx.param(rule, "redraw_to"), ctx.dice)
    elif trigger == "special":
        result = special(state, spec, inputs["holder"], ctx.dice, take_all=bool(inputs.get("all")),
                         count=inputs.get("count"), selection=inputs.get("selection", "random"),
                         cards=inputs.get("cards"), allowed=ctx.param(rule, "selection"),
                         rule_id=rule.id)
    else:
        raise MprError(UNKNOWN_TRIGGER, rule.loc("circulation"), trigger=trigger)
    for change in result.changes:
        ctx.trace.add("circulate", change.holder, change.to_json())
    return {"circulated": result.circulated, "reason": result.reason,
            "changes": [c.to_json() for c in result.changes], **state_value(result.state)}


def check(rule: Any, ruleset: Any, lang: str = "en") -> Iterator[Diagnostic]:
    """The rule's ``deck`` names a rule of kind Deck (a missing one is reported by the reference check)."""
    target = ruleset.rules.get(rule.doc.get("deck", "cards.deck"))
    if target is not None and target.kind != "Deck":
        yield diagnostic(NOT_A_DECK, rule.loc("deck"), lang, rule=rule.id, target=target.id,
                         kind=target.kind)


KIND = Kind("Circulation", run, check=check)
