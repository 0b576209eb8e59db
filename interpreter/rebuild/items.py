"""R19, the item rebuild: the money refunded (A + B - C), bought with first the creation money
then the rest (or, with the GM's leave, all at once), and what is left."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .plan import (Line, Outcome, Violation, choice, field_of, flag, join, name, record, sequence,
                   whole)


MONEY = ("initial", "scenarios", "spells_spent", "converted", "from_spells")
"""The fields of an item plan's ``money``."""


def _purchases(value: Any, phases: list[str], path: str) -> list[dict[str, Any]]:
    """A list of ``{name, price, phase}``; the same item may be bought more than once (no
    uniqueness check, unlike skills and spells)."""
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        entry = record(raw, here, ("name", "price", "phase"))
        records.append({"name": name(field_of(entry, "name", here), join(here, "name")),
                        "price": whole(field_of(entry, "price", here), join(here, "price")),
                        "phase": choice(field_of(entry, "phase", here), phases,
                                        join(here, "phase"), "phase")})
    return records


def check_items(plan: Mapping[str, Any], params: Mapping[str, Any]) -> Outcome:
    """Check an R19 plan: ``{money: {initial, scenarios, spells_spent, converted, from_spells},
    purchases, gm_allows_single_phase}``. ``converted`` (money from converted ability points and
    skill acquisitions) and ``from_spells`` (ordinary money the spell rebuild left) join the
    money spent after the creation phase."""
    phases = [str(p) for p in sequence(params.get("phases"), "params.phases")]
    money = record(plan.get("money"), "money", MONEY)
    initial = whole(field_of(money, "initial", "money"), "money.initial")
    scenarios = whole(field_of(money, "scenarios", "money"), "money.scenarios")
    spells_spent = whole(field_of(money, "spells_spent", "money"), "money.spells_spent")
    converted = whole(money.get("converted", 0), "money.converted")
    from_spells = whole(money.get("from_spells", 0), "money.from_spells")
    purchases = _purchases(plan.get("purchases", []), phases, "purchases")
    single = flag(plan.get("gm_allows_single_phase", False), "gm_allows_single_phase")

    found: list[Violation] = []
    refund = initial + scenarios - spells_spent
    if refund < 0:
        found.append(Violation("spells_spent_over_money", "money.spells_spent", {
            "spells_spent": spells_spent, "obtained": initial + scenarios, "over": -refund}))
    budget = max(0, refund) + converted + from_spells
    creation_budget = budget if single else min(initial, max(0, refund))
    spent_creation = sum(p["price"] for p in purchases if p["phase"] == phases[0])
    spent = sum(p["price"] for p in purchases)
    if not single and spent_creation > creation_budget:
        found.append(Violation("creation_over_budget", "purchases", {
            "spent": spent_creation, "budget": creation_budget,
            "over": spent_creation - creation_budget}))
    if spent > budget:
        found.append(Violation("total_over_budget", "purchases", {
            "spent": spent, "budget": budget, "over": spent - budget}))
    report = (Line("refund", {"initial": initial, "scenarios": scenarios,
                              "spells_spent": spells_spent, "refund": refund,
                              "extra": converted + from_spells, "budget": budget}),
              Line("spending", {"creation_budget": creation_budget,
                                "spent_creation": spent_creation,
                                "spent_after": spent - spent_creation,
                                "remaining": budget - spent}))
    values = {"refund": refund, "budget": budget, "creation_budget": creation_budget,
              "spent_creation": spent_creation, "spent_after": spent - spent_creation,
              "remaining": budget - spent}
    return Outcome(values, tuple(found), report)
