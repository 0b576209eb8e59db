"""R17, the ability rebuild: split a planned final allocation into a capped base and a capped
excess (or prove that no split exists and say which bound breaks), and propose a nearby legal
plan."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

from rules_dsl.limits import MAX_REBUILD_CANDIDATES

from .plan import Line, Outcome, Violation, at_most, flag, join, keyed, mapping, unset, whole


@dataclass(frozen=True)
class AbilityRules:
    """The numbers of R17, all from the rule's parameters."""

    base_total: int  # the points of a new character (40)
    maximum: int  # the base allocation's maximum per ability (15)
    extra_max: int  # the excess an ability may take (+5)
    minimums: Mapping[str, int]  # the base allocation's minimum per ability, in ability order
    mj_per_point: int  # money per converted point (1,000 Mj)

    @property
    def abilities(self) -> tuple[str, ...]:
        return tuple(self.minimums)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], immature: bool = False) -> "AbilityRules":
        minimums = mapping(params.get("minimums"), "params.minimums")
        names = [str(k) for k in minimums]
        chosen = keyed(minimums, names, "params.minimums", "ability")
        if immature:
            lowered = params.get("immature_minimums")
            if lowered is None:
                raise unset("params.immature_minimums", "immature: true")
            chosen = keyed(lowered, names, "params.immature_minimums", "ability")
        maximum = whole(params.get("maximum"), "params.maximum")
        where = "params.immature_minimums" if immature else "params.minimums"
        for a, low in chosen.items():
            at_most(low, maximum, join(where, a))
        return cls(whole(params.get("base_total"), "params.base_total"), maximum,
                   whole(params.get("extra_max"), "params.extra_max"),
                   chosen, whole(params.get("mj_per_point"), "params.mj_per_point"))

    def extra_bounds(self, after: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Per ability, the excess it may hold: from ``max(0, a - maximum)`` to
        ``min(extra_max, a - minimum)``."""
        return {a: (max(0, after[a] - self.maximum),
                    min(self.extra_max, after[a] - self.minimums[a])) for a in self.abilities}


def split(after: Mapping[str, int], excess: int, rules: AbilityRules
          ) -> tuple[dict[str, int], dict[str, int]] | None:
    """A split of ``after`` into base (sum ``base_total``, each within minimum..maximum) plus extra
    (sum ``excess``, each within 0..extra_max), or None when there is none.

    Proof that this is exact. Write a_i for after, e_i for the extra, b_i = a_i - e_i for the base.
    The conditions 0 <= e_i <= E and m_i <= a_i - e_i <= M are, together, lo_i <= e_i <= hi_i with
    lo_i = max(0, a_i - M) and hi_i = min(E, a_i - m_i). Given sum(a) = B + X, the base sums to B
    exactly when the extras sum to X. So a split exists iff sum(a) = B + X, every lo_i <= hi_i, and
    some integer choice of e_i in [lo_i, hi_i] sums to X. The sums reachable are exactly the
    integers of [sum(lo), sum(hi)]: start from every e_i = lo_i and raise one e_i by 1 at a time
    until all are at hi_i; each step adds exactly 1, so every integer between is met, and nothing
    outside the interval is possible. The loop below is that walk, raising the largest abilities
    first, so it finds a split whenever one exists.
    """
    if sum(after.values()) != rules.base_total + excess:
        return None
    bounds = rules.extra_bounds(after)
    if any(lo > hi for lo, hi in bounds.values()):
        return None
    extra = {a: lo for a, (lo, _) in bounds.items()}
    missing = excess - sum(extra.values())
    if missing < 0:
        return None
    for a in sorted(rules.abilities, key=lambda a: -after[a]):
        step = min(missing, bounds[a][1] - extra[a])
        extra[a] += step
        missing -= step
    if missing:
        return None
    return {a: after[a] - extra[a] for a in rules.abilities}, extra


def _violations(after: Mapping[str, int], excess: int, rules: AbilityRules) -> list[Violation]:
    """Why ``after`` has no split for an excess of ``excess``: each broken bound, by how much."""
    found = []
    total, wanted = sum(after.values()), rules.base_total + excess
    if total > wanted:
        found.append(Violation("total_over", "after", {"total": total, "available": wanted,
                                                       "over": total - wanted}))
    elif total < wanted:
        found.append(Violation("total_short", "after", {"total": total, "available": wanted,
                                                        "short": wanted - total}))
    bounds = rules.extra_bounds(after)
    for a in rules.abilities:
        if after[a] < rules.minimums[a]:
            found.append(Violation("below_minimum", join("after", a), {
                "ability": a, "value": after[a], "minimum": rules.minimums[a],
                "short": rules.minimums[a] - after[a]}))
        elif after[a] > rules.maximum + rules.extra_max:
            found.append(Violation("above_maximum", join("after", a), {
                "ability": a, "value": after[a], "limit": rules.maximum + rules.extra_max,
                "maximum": rules.maximum, "extra_max": rules.extra_max,
                "over": after[a] - rules.maximum - rules.extra_max}))
    if found:
        return found
    needed = sum(lo for lo, _ in bounds.values())
    capacity = sum(hi for _, hi in bounds.values())
    if needed > excess:
        above = [a for a in rules.abilities if bounds[a][0] > 0]
        found.append(Violation("excess_too_small", "after", {
            "abilities": above, "maximum": rules.maximum, "needed": needed, "excess": excess,
            "over": needed - excess}))
    elif capacity < excess:
        found.append(Violation("excess_unplaceable", "after", {
            "excess": excess, "capacity": capacity, "extra_max": rules.extra_max,
            "over": excess - capacity}))
    return found


def nearest_legal(after: Mapping[str, int], excess: int, rules: AbilityRules
                  ) -> dict[str, int] | None:
    """The legal final allocation closest to ``after`` (fewest points moved, then fewest abilities
    changed, then the first in ability order), by exact search; None when none exists or the
    search space exceeds ``MAX_REBUILD_CANDIDATES``."""
    names = rules.abilities
    total = rules.base_total + excess
    if not names:
        return None
    ranges = [range(rules.minimums[a], rules.maximum + rules.extra_max + 1) for a in names[:-1]]
    size = 1
    for r in ranges:
        size *= max(1, len(r))
    if size > MAX_REBUILD_CANDIDATES:
        return None
    last = names[-1]
    best: tuple[tuple[int, int], dict[str, int]] | None = None
    for head in product(*ranges):
        rest = total - sum(head)
        if not rules.minimums[last] <= rest <= rules.maximum + rules.extra_max:
            continue
        plan = dict(zip(names, (*head, rest)))
        distance = sum(abs(plan[a] - after.get(a, 0)) for a in names)
        if best is not None and distance > best[0][0]:
            continue
        key = (distance, sum(plan[a] != after.get(a, 0) for a in names))
        if (best is None or key < best[0]) and split(plan, excess, rules) is not None:
            best = (key, plan)
    return best[1] if best else None


def moves(after: Mapping[str, int], target: Mapping[str, int], names: tuple[str, ...]
          ) -> list[Line]:
    """How to go from ``after`` to ``target``: points moved between abilities, added, removed."""
    give = [[a, after[a] - target[a]] for a in names if after[a] > target[a]]
    take = [[a, target[a] - after[a]] for a in names if target[a] > after[a]]
    lines = []
    while give and take:
        amount = min(give[0][1], take[0][1])
        lines.append(Line("move", {"amount": amount, "source": give[0][0], "target": take[0][0]}))
        for side in (give, take):
            side[0][1] -= amount
            if not side[0][1]:
                side.pop(0)
    lines += [Line("remove", {"amount": k, "ability": a}) for a, k in give]
    lines += [Line("add", {"amount": k, "ability": a}) for a, k in take]
    return lines


def check_abilities(plan: Mapping[str, Any], params: Mapping[str, Any]) -> Outcome:
    """Check an R17 plan: ``{before, after, to_skills, to_money, gm_permits_conversion, immature,
    from_skills}`` against the rule's parameters."""
    immature = flag(plan.get("immature", False), "immature")
    rules = AbilityRules.from_params(params, immature)
    names = rules.abilities
    before = keyed(plan.get("before"), names, "before", "ability")
    after = keyed(plan.get("after"), names, "after", "ability")
    to_skills = whole(plan.get("to_skills", 0), "to_skills")
    to_money = whole(plan.get("to_money", 0), "to_money")
    from_skills = whole(plan.get("from_skills", 0), "from_skills")
    permitted = flag(plan.get("gm_permits_conversion", False), "gm_permits_conversion")

    points = sum(before.values()) + from_skills
    excess = max(0, points - rules.base_total)
    converted = to_skills + to_money
    found: list[Violation] = []
    if points < rules.base_total:
        found.append(Violation("points_short", "before", {
            "points": points, "base_total": rules.base_total, "short": rules.base_total - points}))
    if not permitted:
        found += [Violation("conversion_not_permitted", where, {"amount": amount})
                  for where, amount in (("to_skills", to_skills), ("to_money", to_money)) if amount]
    if converted > excess:
        found.append(Violation("conversion_over_excess", "to_skills" if to_skills else "to_money", {
            "converted": converted, "excess": excess, "over": converted - excess}))
    granted = min(converted, excess) if permitted else 0
    placed = excess - granted
    enough = points >= rules.base_total
    if enough:
        found += _violations(after, placed, rules)
    halves = split(after, placed, rules) if enough and not found else None
    report = [Line("points", {"points": points, "base_total": rules.base_total, "excess": excess,
                              "converted": converted, "placed": placed})]
    proposal = None
    if halves is not None:
        base, extra = halves
        report += [Line("base", {"base": base, "base_total": rules.base_total}),
                   Line("extra", {"extra": {a: v for a, v in extra.items() if v},
                                  "placed": placed, "extra_max": rules.extra_max})]
    elif enough:
        capacity = rules.extra_max * len(names)
        proposal = nearest_legal(after, placed, rules) if placed <= capacity else None
        if placed > capacity:
            report.append(Line("no_proposal", {"excess": placed, "capacity": capacity,
                                               "over": placed - capacity}))
        elif proposal is not None:
            report.append(Line("proposal", {"after": proposal, "converted": granted}))
            report += moves(after, proposal, names)
        fewer = sum(after.values()) - rules.base_total - placed
        if 0 < fewer <= granted and split(after, placed + fewer, rules) is not None:
            report.append(Line("convert_less", {"amount": fewer, "converted": granted - fewer}))
    values = {"points": points, "excess": excess, "converted": converted, "placed": placed,
              "base": halves[0] if halves else None, "extra": halves[1] if halves else None,
              "skill_acquisitions": min(to_skills, granted),
              "money_mj": (granted - min(to_skills, granted)) * rules.mj_per_point,
              "proposal": proposal}
    return Outcome(values, tuple(found), tuple(report))
