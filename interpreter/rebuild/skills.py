"""R18, the skill rebuild: count the acquisitions of the skills unlearned, convert part of the
excess with the GM's permission, and check that the relearned skills use exactly the acquisitions
left."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .plan import (Line, Outcome, Violation, choice, field_of, flag, join, mapping, name,
                   record, sequence, unique, whole)


def _skills(value: Any, ranks: Mapping[str, int], path: str) -> list[dict[str, Any]]:
    """A list of ``{name, rank}``: names unique, ranks known."""
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        entry = record(raw, here, ("name", "rank"))
        records.append({"name": name(field_of(entry, "name", here), join(here, "name")),
                        "rank": choice(field_of(entry, "rank", here), ranks, join(here, "rank"),
                                       "rank")})
    unique(records, path)
    return records


def rank_costs(params: Mapping[str, Any]) -> dict[str, int]:
    """Acquisitions per rank (novice 1, expert 2, master 3), from the parameters."""
    ranks = mapping(params.get("ranks"), "params.ranks")
    return {str(r): whole(n, join("params.ranks", str(r))) for r, n in ranks.items()}


def acquisitions(skills: Sequence[Mapping[str, Any]], ranks: Mapping[str, int]) -> int:
    return sum(ranks[s["rank"]] for s in skills)


def check_skills(plan: Mapping[str, Any], params: Mapping[str, Any]) -> Outcome:
    """Check an R18 plan: ``{before, after, from_abilities, to_abilities, to_money,
    gm_permits_conversion}`` against the rule's parameters."""
    ranks = rank_costs(params)
    base = whole(params.get("base_acquisitions"), "params.base_acquisitions")
    mj = whole(params.get("mj_per_acquisition"), "params.mj_per_acquisition")
    before = _skills(plan.get("before", []), ranks, "before")
    after = _skills(plan.get("after", []), ranks, "after")
    from_abilities = whole(plan.get("from_abilities", 0), "from_abilities")
    to_abilities = whole(plan.get("to_abilities", 0), "to_abilities")
    to_money = whole(plan.get("to_money", 0), "to_money")
    permitted = flag(plan.get("gm_permits_conversion", False), "gm_permits_conversion")

    counted = acquisitions(before, ranks)
    excess = max(0, counted - base)
    converted = to_abilities + to_money
    found: list[Violation] = []
    if not permitted:
        found += [Violation("conversion_not_permitted", where, {"amount": amount})
                  for where, amount in (("to_abilities", to_abilities), ("to_money", to_money))
                  if amount]
    if converted > excess:
        found.append(Violation("conversion_over_excess",
                               "to_abilities" if to_abilities else "to_money",
                               {"converted": converted, "excess": excess,
                                "over": converted - excess}))
    granted = min(converted, excess) if permitted else 0
    available = counted - granted + from_abilities
    used = acquisitions(after, ranks)
    if used > available:
        found.append(Violation("acquisitions_over", "after", {
            "used": used, "available": available, "over": used - available}))
    elif used < available:
        found.append(Violation("acquisitions_short", "after", {
            "used": used, "available": available, "short": available - used}))
    report = (Line("acquisitions", {"acquisitions": counted, "base": base, "excess": excess,
                                    "converted": converted, "from_abilities": from_abilities,
                                    "available": available, "used": used,
                                    "left": available - used}),)
    values = {"acquisitions": counted, "excess": excess, "converted": converted,
              "available": available, "used": used,
              "ability_points": min(to_abilities, granted),
              "money_mj": (granted - min(to_abilities, granted)) * mj}
    return Outcome(values, tuple(found), report)
