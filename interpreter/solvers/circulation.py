"""Circulation of held cards: held cards are discarded and as many drawn from the deck (discard
first, then draw), as pure functions over a ``DeckState``. Three modes: ``after_minimum`` (one
holder, once an amount reaches a minimum), ``all_holders`` (every holder of the kinds a rule
renews) and ``ordered`` (all or a chosen part of one holder's cards); used by the ``Circulation``
kind and by the campaign."""
from __future__ import annotations

from rules_dsl.errors import Location, MprError, define
from rules_dsl.frozen import Frozen

from interpreter.solvers.cards import NEGATIVE_COUNT, TOO_MANY, DeckSpec, DeckState, discard, draw

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from fractions import Fraction
    from typing import Any

    from rules_dsl.dice import DiceSource

    Keep = Callable[[str, str], bool]  # (card, holder) -> whether the card stays with its holder

NEGATIVE_HOURS = define(
    "MPR610", "the hours slept cannot be negative: {hours}", "睡眠時間に負の値は指定できません: {hours}")
SELECTION_NOT_ALLOWED = define(
    "MPR611", "selection {selection!r} is not allowed by {rule} (allowed: {allowed})",
    "選択方法 {selection!r} は {rule} で認められていません（認められている方法: {allowed}）")
CARDS_NEEDED = define(
    "MPR612", "selection {selection} needs the chosen cards, {count} of them",
    "選択方法 {selection} では選んだカードを {count} 枚指定してください")
ALL_OR_COUNT = define(
    "MPR613", "say which cards to circulate: all of them, or some (a number of cards, the chosen "
              "cards, or both); all of them takes neither of the others",
    "循環させるカードを指定してください: すべてか、一部（枚数、選んだカード、またはその両方）です。"
    "すべてを指定するときは、枚数も選んだカードも指定できません")
COUNT_MISMATCH = define(
    "MPR615", "the number of cards is {count} but {given} cards were chosen",
    "枚数の指定は {count} ですが、選ばれたカードは {given} 枚です")
BAD_REDRAW_TO = define(
    "MPR616", "redraw_to must be holder or owner_hand, not {value!r}",
    "redraw_to には holder か owner_hand を指定してください（指定値: {value!r}）")
OWNER_NOT_A_HOLDER = define(
    "MPR682", "{item}'s owner {owner!r} is not a holder of its own (an item or unknown): its cards have nowhere to go",
    "{item} の持ち主 {owner!r} は手札を持つ保持者ではありません（アイテムか、存在しません）。カードの行き先がありません")
CARDS_WITH_RANDOM = define(
    "MPR617", "random selection draws the cards itself: give the chosen cards only with the selection player or gm",
    "ランダム選択ではカードは自動で選ばれます。選んだカードは選択方法 player か gm と一緒に指定してください")
BAD_RENEWS = define(
    "MPR774", "renews must list holders among {known}, not {value!r}",
    "renews には {known} のうち循環させる保持者を指定してください（指定値: {value!r}）")

KEEP_NOT_BOOLEAN = define(
    "MPR785", "keep of {rule} gave {value!r} for the card {card} of {holder}, not true or false",
    "{rule} の keep が {holder} の札 {card} について {value!r} を返しました。真偽値ではありません")

SELECTIONS = ("random", "player", "gm")
REDRAW_TO = ("holder", "owner_hand")
HOLDER_KINDS = ("characters", "items")


def card_value(card: str, deck: Mapping[str, Any]) -> dict[str, Any]:
    """What an expression of one card sees: ``{id, suit, rank, joker}`` read off the Deck's
    parameters (a joker has no suit and no rank)."""
    jokers = [str(j) for j in deck.get("jokers") or []]
    if card in jokers:
        return {"id": card, "suit": None, "rank": None, "joker": True}
    for suit in sorted((str(s) for s in deck.get("suits") or []), key=len, reverse=True):
        rank = card[len(suit):]
        if card.startswith(suit) and rank in [str(r) for r in deck.get("ranks") or []]:
            return {"id": card, "suit": suit, "rank": rank, "joker": False}
    return {"id": card, "suit": None, "rank": None, "joker": False}


def keeper(expression: Any, deck: Mapping[str, Any], params: Mapping[str, Any], rule_id: str,
           dice: DiceSource | None = None) -> Keep:
    """The ``keep`` of a circulation as a function of one card and its holder: the compiled
    expression sees ``card`` (``card_value``), ``holder`` and ``params`` (and rolls ``dice``)."""
    def keep(card: str, holder: str) -> bool:
        value = expression.evaluate({"card": card_value(card, deck), "holder": holder,
                                     "params": params}, dice)
        if not isinstance(value, bool):
            raise MprError(KEEP_NOT_BOOLEAN, Location(path="keep"), rule=rule_id, value=value,
                           card=card, holder=holder)
        return value
    return keep


def _circulating(state: DeckState, holder: str, keep: Keep | None) -> tuple[str, ...]:
    """The cards of ``holder`` that circulate: those ``keep`` does not keep."""
    held = state.held(holder)
    return held if keep is None else tuple(card for card in held if not keep(card, holder))


class Change(Frozen):
    """One holder's circulation: the cards it put out, and the cards drawn into ``to``."""

    __slots__ = ("holder", "out", "to", "drawn")
    holder: str
    out: tuple[str, ...]
    to: str
    drawn: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"holder": self.holder, "out": list(self.out), "to": self.to, "in": list(self.drawn)}


class Circulated(Frozen):
    """What a circulation did: the new state, the changes, and why nothing happened if so."""

    __slots__ = ("state", "changes", "reason", "reshuffles")
    _defaults = {"changes": (), "reason": None, "reshuffles": 0}
    state: DeckState
    changes: tuple[Change, ...]
    reason: str | None  # "short", "no_cards", "none_chosen", "kept" when nothing circulated
    reshuffles: int

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


def after_minimum(state: DeckState, spec: DeckSpec, holder: str, amount: int | Fraction,
                  minimum: int | Fraction, dice: DiceSource, field: str = "amount",
                  keep: Keep | None = None) -> Circulated:
    """Once ``amount`` reaches ``minimum``, every card ``holder`` holds (but those ``keep``
    keeps) is discarded and redrawn; a smaller amount changes nothing (reason ``short``).
    ``field`` names the amount's input."""
    if amount < 0:
        raise MprError(NEGATIVE_HOURS, Location(path=field), hours=amount)
    held = state.held(holder)
    if amount < minimum:
        return Circulated(state, reason="short")
    if not held:
        return Circulated(state, reason="no_cards")
    cards = _circulating(state, holder, keep)
    if not cards:
        return Circulated(state, reason="kept")
    return circulate(state, spec, [(holder, cards, holder)], dice)


def renewed_holders(renews: Sequence[str], characters: Sequence[str],
                    items: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(holder, owner)`` for every holder of the kinds ``renews`` lists, in its order: each
    character is its own owner; each item is ``(item, owner)``."""
    if (not isinstance(renews, (list, tuple)) or not renews
            or any(kind not in HOLDER_KINDS for kind in renews)):
        raise MprError(BAD_RENEWS, Location(path="renews"), known=", ".join(HOLDER_KINDS),
                       value=renews)
    of_kind = {"characters": [(c, c) for c in characters], "items": list(items)}
    return [pair for kind in dict.fromkeys(renews) for pair in of_kind[kind]]


def all_holders(state: DeckState, spec: DeckSpec, holders: Sequence[tuple[str, str]],
                redraw_to: str, dice: DiceSource, keep: Keep | None = None) -> Circulated:
    """Every holder (``(holder, owner)``) discards all its cards (but those ``keep`` keeps); then
    each draws as many, into itself (``holder``) or into its owner's hand (``owner_hand``)."""
    if redraw_to not in REDRAW_TO:
        raise MprError(BAD_REDRAW_TO, Location(path="redraw_to"), value=redraw_to)
    if redraw_to == "owner_hand":
        hands = set(state.holder_ids()) - {holder for holder, owner in holders if holder != owner}
        for holder, owner in holders:
            if holder != owner and owner not in hands:
                raise MprError(OWNER_NOT_A_HOLDER, Location(path=holder), item=holder, owner=owner)
    moves = [(holder, _circulating(state, holder, keep), holder if redraw_to == "holder" else owner)
             for holder, owner in holders]
    if not [move for move in moves if move[1]]:
        held = any(state.held(holder) for holder, _ in holders)
        return Circulated(state, reason="kept" if held else "no_cards")
    return circulate(state, spec, [move for move in moves if move[1]], dice)


def ordered(state: DeckState, spec: DeckSpec, holder: str, dice: DiceSource, *,
            take_all: bool = False, count: int | None = None, selection: str = "random",
            cards: Sequence[str] | None = None, allowed: Sequence[str] = SELECTIONS,
            rule_id: str = "", keep: Keep | None = None) -> Circulated:
    """All or ``count`` of a holder's cards are discarded and redrawn; a part is chosen at random
    (by ``dice``) or given (``cards``, chosen by the player or the GM). The cards ``keep`` keeps
    are not among those held here. Errors are located at the input fields (``all``, ``count``,
    ``selection``, ``cards``)."""
    held = _circulating(state, holder, keep)
    if take_all:
        if count is not None or cards:
            raise MprError(ALL_OR_COUNT, Location(path="all/count/cards"))
        chosen: Sequence[str] = held
    else:
        if count is None and not cards:
            raise MprError(ALL_OR_COUNT, Location(path="all/count/cards"))
        if selection not in allowed:
            raise MprError(SELECTION_NOT_ALLOWED, Location(path="selection"), selection=selection,
                           rule=rule_id, allowed=", ".join(allowed))
        if count is not None and count < 0:
            raise MprError(NEGATIVE_COUNT, Location(path="count"), count=count)
        chosen = _chosen(state.held(holder) if cards else held, holder, count, selection, cards, dice)
        if keep is not None:  # a kept card the player or GM chose stays too
            chosen = [card for card in chosen if not keep(card, holder)]
    if not chosen:
        reason = "no_cards" if not state.held(holder) else "kept" if not held else "none_chosen"
        return Circulated(state, reason=reason)
    return circulate(state, spec, [(holder, tuple(chosen), holder)], dice)


def _chosen(held: Sequence[str], holder: str, count: int | None, selection: str,
            cards: Sequence[str] | None, dice: DiceSource) -> list[str]:
    """The part of ``held`` to circulate: drawn at random, or the cards the player or GM chose."""
    if selection == "random":
        if cards or count is None:  # without cards the caller required a count
            raise MprError(CARDS_WITH_RANDOM, Location(path="cards"))
        if count > len(held):
            raise MprError(TOO_MANY, Location(path="count"), holder=holder, held=len(held),
                           wanted=count)
        return dice.choose(list(held), count)
    if not cards:
        raise MprError(CARDS_NEEDED, Location(path="cards"), selection=selection, count=count)
    if count is not None and count != len(cards):
        raise MprError(COUNT_MISMATCH, Location(path="cards"), count=count, given=len(cards))
    if len(cards) > len(held):
        raise MprError(TOO_MANY, Location(path="cards"), holder=holder, held=len(held),
                       wanted=len(cards))
    return list(cards)
