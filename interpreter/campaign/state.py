"""What a campaign file holds, as values: the ruleset pin, the holders (characters and items), the
whole state (cards, clock, briefings) and a journal entry."""
from __future__ import annotations

from rules_dsl.frozen import Frozen, replace

from interpreter.solvers.cards import DeckSpec, DeckState

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Pin(Frozen):
    """The ruleset a campaign uses: where it is, its content hash, the caller's switches, the
    parameters of the rules the campaign needs (``rules[id] = {kind, adopted, params, doc}``), and
    the manifest's campaign wiring (``campaign``) with the file that declares it (``manifest``)."""

    __slots__ = ('path', 'content_hash', 'adopt', 'param_overrides', 'rules', 'parameters', 'campaign', 'manifest')
    _defaults = {'manifest': ''}
    _factories = {'campaign': dict}
    path: str
    content_hash: str
    adopt: dict[str, bool]
    param_overrides: dict[str, dict]
    rules: dict[str, dict]
    parameters: dict[str, Any]
    campaign: dict[str, Any]
    manifest: str


class Holder(Frozen):
    """A character (``owner`` None) or an item (``owner`` its character), with its YAML data."""

    __slots__ = ('id', 'data', 'owner')
    _defaults = {'owner': None}
    id: str
    data: dict[str, Any]
    owner: str | None


class State(Frozen):
    """Everything a campaign file holds apart from the journal."""

    __slots__ = ('pin', 'characters', 'items', 'cards', 'clock_minutes', 'dawn_minutes', 'briefing', 'briefing_tier', 'briefing_uses')
    _defaults = {'briefing': 0, 'briefing_tier': None, 'briefing_uses': ()}
    pin: Pin
    characters: tuple[Holder, ...]
    items: tuple[Holder, ...]
    cards: DeckState
    clock_minutes: int
    dawn_minutes: int
    briefing: int
    briefing_tier: str | None
    briefing_uses: tuple[tuple[int, str, str, str], ...]

    def deck_spec(self) -> DeckSpec:
        deck = self.pin.rules.get(self.pin.campaign.get("deck", "")) or {}
        return DeckSpec.from_params(deck.get("params") or {})

    def dump(self) -> dict[str, Any]:
        """The whole state as plain JSON data (what undo restores and tests compare)."""
        return {"pin": self.pin._asdict(), "clock_minutes": self.clock_minutes,
                "dawn_minutes": self.dawn_minutes, "briefing": self.briefing,
                "briefing_tier": self.briefing_tier,
                "briefing_uses": [list(u) for u in self.briefing_uses],
                "characters": [{"id": h.id, "data": h.data} for h in self.characters],
                "items": [{"id": h.id, "owner": h.owner, "data": h.data} for h in self.items],
                "cards": self.cards.to_json()}

    @classmethod
    def from_dump(cls, data: dict[str, Any]) -> "State":
        cards = data["cards"]
        return cls(Pin(**data["pin"]),
                   tuple(Holder(h["id"], h["data"]) for h in data["characters"]),
                   tuple(Holder(h["id"], h["data"], h["owner"]) for h in data["items"]),
                   DeckState(tuple(cards["deck"]), tuple(cards["discard"]),
                             tuple((h, tuple(c)) for h, c in cards["holders"].items())),
                   data["clock_minutes"], data["dawn_minutes"], data["briefing"],
                   data["briefing_tier"], tuple(tuple(u) for u in data["briefing_uses"]))

    def evolve(self, **changes: Any) -> "State":
        return replace(self, **changes)


class Entry(Frozen):
    """One journal line: a command with its inputs, seed, scripted choices and result."""

    __slots__ = ('seq', 'command', 'inputs', 'seed', 'choices', 'result', 'undone_by', 'before')
    _defaults = {'undone_by': None, 'before': None}
    seq: int
    command: str
    inputs: dict[str, Any]
    seed: int | None
    choices: list[Any]
    result: dict[str, Any]
    undone_by: int | None
    before: dict[str, Any] | None
