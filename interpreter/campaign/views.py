"""The campaign commands that only read a campaign (``show``, ``log``, ``export``, and the names
text output gives holders): apart from the commands that change one, so that reading loads
neither the rules a command runs nor the modules that run them."""
from __future__ import annotations

from rules_dsl.errors import MprError

from interpreter.campaign.kept import Reading
from interpreter.campaign.limits import MAX_JOURNAL_SHOWN
from interpreter.campaign.pin import check_pin, clock_text
from interpreter.campaign.shown import names_of, show_state, shown

__all__ = ["export", "holder_names", "log", "names_of", "show", "show_state", "shown"]

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from interpreter.campaign.store import Store


def show(store: Store | Reading) -> dict[str, Any]:
    """The state, and whether the pinned ruleset changed on disk (then other commands refuse)."""
    if isinstance(store, Reading):
        result, pin = store.part("show"), store.pin()
    else:
        state = store.load()
        result, pin = shown(state), state.pin
    try:
        check_pin(pin, store.path)
        changed = False
    except MprError:
        changed = True
    result["ruleset_changed"] = changed  # in its place among the keys
    return result


def log(store: Store | Reading, *, last: int | None = None) -> dict[str, Any]:
    """The newest ``last`` journal entries (at most ``MAX_JOURNAL_SHOWN``), oldest first."""
    shown = store.entries(last=min(last or MAX_JOURNAL_SHOWN, MAX_JOURNAL_SHOWN))
    return {"entries": [{"seq": e.seq, "command": e.command, "inputs": e.inputs, "seed": e.seed,
                         "changes": e.result.get("changes", []), "clock": e.result.get("clock"),
                         "undone_by": e.undone_by} for e in shown]}


def holder_names(store: Store | Reading) -> dict[str, Any]:
    """How text shows each holder: its name (with its id when another holder has the same
    name), and which holders are characters."""
    if isinstance(store, Reading):
        return store.part("names")
    return names_of(store.load())


def export(store: Store | Reading) -> dict[str, Any]:
    """The state as YAML data in the shape of chars.yaml (``init --characters`` reads it back,
    with every card given), plus a ``campaign`` section with the clock, deck and discard pile."""
    state = store.load()
    items_of: dict[str, list[dict[str, Any]]] = {}
    for item in state.items:
        items_of.setdefault(item.owner or "", []).append(
            {"id": item.id, **item.data, "held_cards": list(state.cards.held(item.id))})
    characters = []
    for pc in state.characters:
        entry: dict[str, Any] = {"id": pc.id, **pc.data, "hand": list(state.cards.held(pc.id))}
        if pc.id in items_of:
            entry["items"] = items_of[pc.id]
        characters.append(entry)
    campaign = {"ruleset": state.pin.path or "(bundled)", "clock_minutes": state.clock_minutes, "clock": clock_text(state.clock_minutes),
                "deck": list(state.cards.deck), "discard": list(state.cards.discard)}
    if state.pin.adopt:  # what init from this export pins again with the ruleset
        campaign["adopt"] = dict(state.pin.adopt)
    if state.pin.param_overrides:
        campaign["param_overrides"] = {rule: dict(values) for rule, values in state.pin.param_overrides.items()}
    return {"characters": characters, "campaign": campaign}
