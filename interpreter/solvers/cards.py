"""A deck of cards: its composition as data, and draw, discard and shuffle as
pure functions over an immutable ``DeckState``, with the invariant that no card is ever
duplicated or lost (deck + discard pile + every holder == the composition, as multisets)."""
from __future__ import annotations

from collections import Counter

from rules_dsl.frozen import Frozen
from rules_dsl.errors import Location, MprError, define, did_you_mean
from interpreter.solvers.limits import MAX_DECK_CARDS, MAX_HOLDERS

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any, TypedDict

    from rules_dsl.dice import DiceSource

    class DeckView(TypedDict):
        """The compact form of a deck's state in results."""

        deck_count: int
        discard: list[str]
        holders: dict[str, list[str]]

UNKNOWN_CARD = define(
    "MPR600", "card {card!r} is not in the deck (the deck has {count} cards, e.g. {example})",
    "カード {card!r} は山札の構成にありません（山札は {count} 枚。例: {example}）")
CARD_TWICE = define(
    "MPR601", "card {card} is listed twice (every card exists once)",
    "カード {card} が2回指定されています（各カードは1枚しかありません）")
NOT_HELD = define(
    "MPR602", "{holder} does not hold {card} (it holds: {held})",
    "{holder} は {card} を保持していません（保持しているカード: {held}）")
TOO_MANY = define(
    "MPR603", "{holder} holds {held} cards; {wanted} cannot be taken",
    "{holder} が保持しているカードは {held} 枚です。{wanted} 枚は選べません")
DECK_EMPTY = define(
    "MPR604", "the deck is empty: {wanted} more cards were needed (on_empty: {on_empty})",
    "山札が尽きました: あと {wanted} 枚必要です（on_empty: {on_empty}）")
BROKEN_INVARIANT = define(
    "MPR605", "the cards do not add up to the deck: missing {missing}, extra {extra}",
    "カードが山札の構成と一致しません: 不足 {missing}、余分 {extra}")
BAD_COMPOSITION = define(
    "MPR606", "the deck composition is not usable: {detail}",
    "山札の構成が不正です: {detail}")
UNKNOWN_HOLDER = define(
    "MPR607", "no holder {holder!r}{hint}", "保持者 {holder!r} はいません{hint}")
NEGATIVE_COUNT = define(
    "MPR608", "a number of cards cannot be negative: {count}",
    "カードの枚数に負の値は指定できません: {count}")
BAD_OPERATION = define(
    "MPR609", "deck operation {op!r} is not usable: use draw or discard (each with a holder) or shuffle",
    "山札操作 {op!r} は使えません。draw か discard（それぞれ holder を指定）、または shuffle を指定してください")

ON_EMPTY = ("reshuffle_discards", "error", "draw_short")
"""What happens when a draw finds the deck empty:
``reshuffle_discards`` (default): the discard pile is shuffled into a new deck, then drawing goes on;
``error``: the command is refused and nothing changes (the GM decides what to do);
``draw_short``: the holder draws only the cards left and the shortfall is reported
(the multiset invariant still holds; the holder simply ends with fewer cards)."""


class DeckSpec(Frozen):
    """The composition of a deck (every card once, in composition order) and its ``on_empty`` rule."""

    __slots__ = ("composition", "on_empty")
    _defaults = {"on_empty": "reshuffle_discards"}
    composition: tuple[str, ...]
    on_empty: str

    @classmethod
    def from_params(cls, params: Mapping[str, Any], loc: Location | None = None) -> "DeckSpec":
        """The spec of a Deck rule's params ``{suits, ranks, jokers, on_empty}``."""
        suits = list(params.get("suits") or [])
        ranks = list(params.get("ranks") or [])
        jokers = list(params.get("jokers") or [])
        cards = [f"{suit}{rank}" for suit in suits for rank in ranks] + [str(j) for j in jokers]
        on_empty = params.get("on_empty", "reshuffle_discards")
        if on_empty not in ON_EMPTY:
            raise MprError(BAD_COMPOSITION, loc, detail=f"on_empty {on_empty!r} is not one of {', '.join(ON_EMPTY)}")
        if not cards:
            raise MprError(BAD_COMPOSITION, loc, detail="no cards")
        if len(cards) > MAX_DECK_CARDS:
            raise MprError(BAD_COMPOSITION, loc, detail=f"more than {MAX_DECK_CARDS} cards")
        twice = [card for card, n in Counter(cards).items() if n > 1] if len(set(cards)) < len(cards) else []
        if twice:
            raise MprError(BAD_COMPOSITION, loc, detail=f"card names repeat: {', '.join(twice)}")
        return cls(tuple(cards), on_empty)

    def require_card(self, card: str, loc: Location | None = None) -> str:
        if card not in self.composition:
            raise MprError(UNKNOWN_CARD, loc, card=card, count=len(self.composition),
                           example=", ".join(self.composition[:3]))
        return card


class DeckState(Frozen):
    """Where every card is: the deck (top first), the discard pile (oldest first) and each holder."""

    __slots__ = ("deck", "discard", "holders")
    _defaults = {"discard": (), "holders": ()}
    deck: tuple[str, ...]
    discard: tuple[str, ...]
    holders: tuple[tuple[str, tuple[str, ...]], ...]

    def held(self, holder: str) -> tuple[str, ...]:
        for name, cards in self.holders:
            if name == holder:
                return cards
        raise MprError(UNKNOWN_HOLDER, Location(path=holder), holder=holder,
                       hint=did_you_mean(holder, [h for h, _ in self.holders]))

    def holder_ids(self) -> list[str]:
        return [name for name, _ in self.holders]

    def with_held(self, holder: str, cards: Iterable[str]) -> "DeckState":
        """The state with ``holder`` holding ``cards`` (a new holder is added at the end)."""
        cards = tuple(cards)
        if holder in self.holder_ids():
            holders = tuple((h, cards if h == holder else c) for h, c in self.holders)
        else:
            if len(self.holders) >= MAX_HOLDERS:
                raise MprError(BAD_COMPOSITION, Location(path=holder),
                               detail=f"more than {MAX_HOLDERS} holders")
            holders = self.holders + ((holder, cards),)
        return DeckState(self.deck, self.discard, holders)

    def to_json(self) -> dict[str, Any]:
        return {"deck": list(self.deck), "discard": list(self.discard),
                "holders": {h: list(c) for h, c in self.holders}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], spec: DeckSpec) -> "DeckState":
        """A state from ``{deck?, discard?, holders?}``; a missing ``deck`` is the rest of the
        composition in composition order. The result is checked against the composition."""
        holders = data.get("holders") or {}
        discard = tuple(str(c) for c in data.get("discard") or ())
        placed = [*discard, *(str(c) for cards in holders.values() for c in cards or ())]
        for card in placed:
            spec.require_card(card)
        if data.get("deck") is None:
            taken = set(placed)
            deck = tuple(c for c in spec.composition if c not in taken)
        else:
            deck = tuple(str(c) for c in data["deck"])
        state = cls(deck, discard, tuple((str(h), tuple(str(c) for c in cards or ()))
                                         for h, cards in holders.items()))
        require_invariant(state, spec)
        return state


def all_cards(state: DeckState) -> Counter:
    """The multiset of every card in the state."""
    total = Counter(state.deck)
    total.update(state.discard)
    for _, cards in state.holders:
        total.update(cards)
    return total


def invariant_problems(state: DeckState, spec: DeckSpec) -> tuple[list[str], list[str]]:
    """(missing, extra): the cards the state lacks and the ones it has too many of; both empty
    exactly when deck + discard + all holders equals the composition as a multiset."""
    have = all_cards(state)
    want = Counter(spec.composition)
    if dict.__eq__(have, want):  # the usual case, compared in C (no count is ever 0 here)
        return [], []
    order = _order(spec)
    missing = sorted((want - have).elements(), key=order)
    extra = sorted((have - want).elements(), key=order)
    return missing, extra


def require_invariant(state: DeckState, spec: DeckSpec, loc: Location | None = None) -> None:
    missing, extra = invariant_problems(state, spec)
    if missing or extra:
        raise MprError(BROKEN_INVARIANT, loc, missing=", ".join(missing) or "-",
                       extra=", ".join(extra) or "-")


def _order(spec: DeckSpec):
    index = {card: i for i, card in enumerate(spec.composition)}
    return lambda card: (index.get(card, len(index)), card)


def fresh_state(spec: DeckSpec, dice: DiceSource | None = None) -> DeckState:
    """All cards in the deck: in composition order, or shuffled by ``dice``."""
    deck = spec.composition if dice is None else tuple(dice.shuffle(list(spec.composition)))
    return DeckState(tuple(deck))


class Drawn(Frozen):
    """The outcome of a draw: the new state, the cards drawn (in order), and what happened on the way."""

    __slots__ = ("state", "cards", "reshuffles", "short")
    _defaults = {"reshuffles": 0, "short": 0}
    state: DeckState
    cards: tuple[str, ...]
    reshuffles: int
    short: int


def draw(state: DeckState, spec: DeckSpec, holder: str, count: int, dice: DiceSource) -> Drawn:
    """``holder`` draws ``count`` cards from the top of the deck (appended to what it holds)."""
    if count < 0:
        raise MprError(NEGATIVE_COUNT, Location(path="count"), count=count)
    held = state.held(holder)
    deck, discard = list(state.deck), list(state.discard)
    drawn: list[str] = []
    reshuffles = short = 0
    while len(drawn) < count:
        if not deck:
            wanted = count - len(drawn)
            if spec.on_empty == "reshuffle_discards" and discard:
                deck, discard = list(dice.shuffle(discard)), []
                reshuffles += 1
                continue
            if spec.on_empty == "draw_short":
                short = wanted
                break
            raise MprError(DECK_EMPTY, Location(path="deck"), wanted=wanted, on_empty=spec.on_empty)
        drawn.append(deck.pop(0))
    after = DeckState(tuple(deck), tuple(discard), state.holders).with_held(holder, held + tuple(drawn))
    return Drawn(after, tuple(drawn), reshuffles, short)


def discard(state: DeckState, holder: str, cards: Iterable[str]) -> DeckState:
    """``holder`` puts ``cards`` on the discard pile (in the order given); each must be held."""
    cards = list(cards)
    held = list(state.held(holder))
    seen: set[str] = set()
    for card in cards:
        if card in seen:
            raise MprError(CARD_TWICE, Location(path=holder), card=card)
        seen.add(card)
        if card not in held:
            raise MprError(NOT_HELD, Location(path=holder), holder=holder, card=card,
                           held=", ".join(held) or "-")
    if len(cards) > len(held):
        raise MprError(TOO_MANY, Location(path=holder), holder=holder, held=len(held), wanted=len(cards))
    kept = tuple(c for c in held if c not in seen)
    return DeckState(state.deck, state.discard + tuple(cards), state.holders).with_held(holder, kept)


def shuffle_deck(state: DeckState, dice: DiceSource) -> DeckState:
    """The deck shuffled in place (discard pile and holders untouched)."""
    return DeckState(tuple(dice.shuffle(list(state.deck))), state.discard, state.holders)


def state_value(state: DeckState) -> DeckView:
    """The compact form results show: deck count, discard pile, holders."""
    return {"deck_count": len(state.deck), "discard": list(state.discard),
            "holders": {h: list(c) for h, c in state.holders}}
