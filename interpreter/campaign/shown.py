"""What the reading commands print of a campaign's state (``show``, and the names ``log`` gives
holders), apart from the views that read it, so that a kept state (``kept``) holds the same."""
from __future__ import annotations

from interpreter.campaign.pin import clock_text
from interpreter.campaign.state import State

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def show_state(state: State) -> dict[str, Any]:
    """The contract of ``show --format json``."""
    return {"clock_minutes": state.clock_minutes, "deck_count": len(state.cards.deck),
            "discard": list(state.cards.discard),
            "holders": {h: list(c) for h, c in state.cards.holders}}


def shown(state: State) -> dict[str, Any]:
    """What ``show`` gives of ``state``: all but whether the ruleset changed (``None`` here)."""
    return {**show_state(state), "ruleset_changed": None, "clock": clock_text(state.clock_minutes),
            "dawn": clock_text(state.dawn_minutes)[-5:],
            "characters": [h.id for h in state.characters],
            "items": {h.id: h.owner for h in state.items},
            "ruleset": {"path": state.pin.path or None, "adopt": dict(state.pin.adopt),
                        "param_overrides": dict(state.pin.param_overrides)}}


def names_of(state: State) -> dict[str, Any]:
    """``holder_names`` of ``state``."""
    holders = (*state.characters, *state.items)
    names = [h.data.get("name") for h in holders]
    shown = {h.id: h.data["name"] if names.count(h.data["name"]) == 1 else f"{h.data['name']}({h.id})"
             for h in holders if isinstance(h.data.get("name"), str)}
    return {"names": shown, "characters": [h.id for h in state.characters]}
