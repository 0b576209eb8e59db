"""R20, the spell rebuild: refund every spell to the purse it was paid from (a free one as if paid),
relearn per school in tier order, spell-only money first, and say what is left in each purse."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .plan import (Line, at_least, Outcome, Violation, choice, field_of, join, keyed, name, record,
                   sequence, unique, whole)


def _spells(value: Any, path: str, sources: list[str] | None, first_tier: int
            ) -> list[dict[str, Any]]:
    """A list of ``{name, school, tier, cost[, paid_from]}``: names unique, tiers from
    ``first_tier``."""
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        keys = ("name", "school", "tier", "cost") + (("paid_from",) if sources is not None else ())
        entry = record(raw, here, keys)
        spell = {"name": name(field_of(entry, "name", here), join(here, "name")),
                 "school": name(field_of(entry, "school", here), join(here, "school")),
                 "tier": at_least(field_of(entry, "tier", here), first_tier, join(here, "tier")),
                 "cost": whole(field_of(entry, "cost", here), join(here, "cost"))}
        if sources is not None:
            spell["paid_from"] = choice(field_of(entry, "paid_from", here), sources,
                                        join(here, "paid_from"), "purse")
        records.append(spell)
    unique(records, path)
    return records


def tier_gaps(spells: list[dict[str, Any]], first_tier: int) -> list[Violation]:
    """Per school, every spell above ``first_tier`` needs a spell of the tier below it."""
    tiers: dict[str, set[int]] = {}
    for spell in spells:
        tiers.setdefault(spell["school"], set()).add(spell["tier"])
    found = []
    for i, spell in enumerate(spells):
        held = tiers[spell["school"]]
        if spell["tier"] > first_tier and spell["tier"] - 1 not in held:
            missing = [t for t in range(first_tier, spell["tier"]) if t not in held]
            found.append(Violation("tier_gap", join(join("relearn", i), "tier"), {
                "spell": spell["name"], "school": spell["school"], "tier": spell["tier"],
                "missing": spell["tier"] - 1, "gap": len(missing),
                "lowest_missing": missing[0]}))
    return found


def check_spells(plan: Mapping[str, Any], params: Mapping[str, Any]) -> Outcome:
    """Check an R20 plan: ``{learned, relearn, money: {spell_only, ordinary}}`` (the purses before
    the refund) against the rule's parameters."""
    purses = [str(p) for p in sequence(params.get("spend_order"), "params.spend_order")]
    free = str(params.get("free_source"))
    refund_to = choice(params.get("free_refund_purse"), purses, "params.free_refund_purse", "purse")
    first_tier = whole(params.get("first_tier"), "params.first_tier")
    learned = _spells(plan.get("learned", []), "learned", [*purses, free], first_tier)
    relearn = _spells(plan.get("relearn", []), "relearn", None, first_tier)
    money = keyed(plan.get("money", {p: 0 for p in purses}), purses, "money", "purse")

    refund = {p: 0 for p in purses}
    for spell in learned:
        refund[refund_to if spell["paid_from"] == free else spell["paid_from"]] += spell["cost"]
    available = {p: money[p] + refund[p] for p in purses}
    due = sum(s["cost"] for s in relearn)
    spent = {}
    for purse in purses:
        spent[purse] = min(due, available[purse])
        due -= spent[purse]
    found = tier_gaps(relearn, first_tier)
    if due:
        found.append(Violation("spells_over_budget", "relearn", {
            "cost": sum(s["cost"] for s in relearn), "available": sum(available.values()),
            "over": due}))
    left = {p: available[p] - spent[p] for p in purses}
    report = (Line("spell_refund", {"refund": refund, "available": available}),
              Line("spell_spending", {"spent": spent, "left": left}))
    return Outcome({"refund": refund, "spent": spent, "left": left}, tuple(found), report)
