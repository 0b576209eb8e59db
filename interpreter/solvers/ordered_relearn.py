"""An ordered relearn: entries held are given up and their cost refunded to the purse each was
paid from (an entry got for free as if paid from a given purse); entries are chosen again with the
refund, grouped by a key, each group taken in ascending order of a level field from the first
level; the purses are spent in a given order and what is left in each is kept.

The plan's vocabulary comes from the document: the lists (``fields.held``, ``fields.chosen``), the
purses (``fields.purses``) and the keys of an entry (``fields.name``, ``group``, ``level``,
``cost``, ``source``)."""
from __future__ import annotations

from collections.abc import Mapping

from interpreter.solvers.plan import (Line, Outcome, Violation, at_least, choice, field_of, join, keyed, name, record,
                   sequence, unique, whole)
from interpreter.solvers.setup import Setup

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

ROLES = ("name", "group", "level", "cost")
"""The keys every entry has, by role; a held entry also has a ``source``."""


def _entries(value: Any, path: str, setup: Setup, sources: list[str] | None, first: int
             ) -> list[dict[str, Any]]:
    """A list of entries, read by role: names unique, levels from ``first``; a held entry names
    the purse (``sources``) it was paid from."""
    keys = {role: setup.field(role) for role in ROLES + (("source",) if sources else ())}
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        entry = record(raw, here, tuple(keys.values()))
        got = {role: field_of(entry, key, here) for role, key in keys.items()}
        read = {"name": name(got["name"], join(here, keys["name"])),
                "group": name(got["group"], join(here, keys["group"])),
                "level": at_least(got["level"], first, join(here, keys["level"])),
                "cost": whole(got["cost"], join(here, keys["cost"]))}
        if sources:
            read["source"] = choice(got["source"], sources, join(here, keys["source"]), "value")
        records.append(read)
    unique(records, path, keys["name"])
    return records


def level_gaps(entries: list[dict[str, Any]], first: int, path: str, level_key: str
               ) -> list[Violation]:
    """Per group, every entry above level ``first`` needs an entry of the level below it."""
    levels: dict[str, set[int]] = {}
    for entry in entries:
        levels.setdefault(entry["group"], set()).add(entry["level"])
    found = []
    for i, entry in enumerate(entries):
        held = levels[entry["group"]]
        if entry["level"] > first and entry["level"] - 1 not in held:
            missing = [t for t in range(first, entry["level"]) if t not in held]
            found.append(Violation("level_gap", join(join(path, i), level_key), {
                "name": entry["name"], "group": entry["group"], "level": entry["level"],
                "missing": entry["level"] - 1, "gap": len(missing), "lowest_missing": missing[0]}))
    return found


def check(plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Check a plan ``{<held>, <chosen>, <purses>}`` (the purses before the refund) against the
    parameters ``spend_order``, ``free_source``, ``free_refund_purse`` and ``first_level``.

    Besides its values, the outcome gives ``paid`` (the cost of the held entries per source, the
    free source included) to a composite plan."""
    params = setup.params  # typed by the kind schema; only the purse named is checked
    purses = [str(p) for p in params["spend_order"]]
    free = str(params["free_source"])
    refund_to = choice(params["free_refund_purse"], purses, "params.free_refund_purse", "value")
    first = params["first_level"]
    held_field, chosen_field = setup.field("held"), setup.field("chosen")
    purse_field = setup.field("purses")
    held = _entries(plan.get(held_field, []), held_field, setup, [*purses, free], first)
    chosen = _entries(plan.get(chosen_field, []), chosen_field, setup, None, first)
    money = keyed(plan.get(purse_field, {p: 0 for p in purses}), purses, purse_field, "value")

    paid = dict.fromkeys([*purses, free], 0)
    refund = dict.fromkeys(purses, 0)
    for entry in held:
        paid[entry["source"]] += entry["cost"]
        refund[refund_to if entry["source"] == free else entry["source"]] += entry["cost"]
    available = {p: money[p] + refund[p] for p in purses}
    due = sum(e["cost"] for e in chosen)
    spent = {}
    for purse in purses:
        spent[purse] = min(due, available[purse])
        due -= spent[purse]
    found = level_gaps(chosen, first, chosen_field, setup.field("level"))
    if due:
        found.append(Violation("over_budget", chosen_field, {
            "cost": sum(e["cost"] for e in chosen), "available": sum(available.values()),
            "over": due}))
    left = {p: available[p] - spent[p] for p in purses}
    report = (Line("refund", {"refund": refund, "available": available}),
              Line("spending", {"spent": spent, "left": left}))
    return Outcome({"refund": refund, "spent": spent, "left": left}, tuple(found), report,
                   details={"paid": paid})
