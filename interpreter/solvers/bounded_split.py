"""A bounded split: check that final values can be split into a base of a fixed total, each field
within a minimum and a maximum, plus an excess placed with a cap per field (or prove that no split
exists and say which bound breaks), after converting part of the excess into other budgets; and
propose the nearest legal plan.

The plan gives ``before`` and ``after`` as mappings of the fields (the keys of the ``minimums``
parameter, in that order); the points are the sum of ``before`` plus a gained amount; the excess is
what they hold above ``base_total``. Every number is a parameter and every other field name comes
from the document (``fields``)."""
from __future__ import annotations

from collections.abc import Mapping
from rules_dsl.frozen import Record  # a dataclass without importing dataclasses (start-up)
from itertools import product

from interpreter.solvers.limits import MAX_SPLIT_CANDIDATES

from interpreter.solvers.plan import Line, Outcome, Violation, at_most, flag, join, keyed, unset, whole
from interpreter.solvers.setup import Setup, exchange

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Bounds(Record, frozen=True):
    """The numbers of a split, all from the rule's parameters."""

    base_total: int  # the total of the base
    maximum: int  # each field's maximum in the base
    extra_max: int  # the most of the excess one field may take
    minimums: Mapping[str, int]  # each field's minimum in the base, in field order

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.minimums)

    @classmethod
    def from_setup(cls, setup: Setup, lowered: bool = False) -> "Bounds":
        """The bounds; with ``lowered``, the minimums of the parameter ``fields.lowered.minimums``
        (null: not set, refused with MPR808)."""
        params = setup.params  # typed by the kind schema; only the cross-field bounds are checked
        chosen = {str(k): v for k, v in params["minimums"].items()}
        names = list(chosen)
        where = "params.minimums"
        if lowered:
            where = f"params.{setup.fields['lowered']['minimums']}"
            value = params.get(str(setup.fields["lowered"]["minimums"]))
            if value is None:
                raise unset(where, f"{setup.fields['lowered']['input']}: true")
            chosen = keyed(value, names, where, "field")
        maximum = params["maximum"]
        for a, low in chosen.items():
            at_most(low, maximum, join(where, a))
        return cls(params["base_total"], maximum, params["extra_max"], chosen)

    def extra_bounds(self, after: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Per field, the excess it may hold: from ``max(0, a - maximum)`` to
        ``min(extra_max, a - minimum)``."""
        return {a: (max(0, after[a] - self.maximum),
                    min(self.extra_max, after[a] - self.minimums[a])) for a in self.names}


def split(after: Mapping[str, int], excess: int, rules: Bounds
          ) -> tuple[dict[str, int], dict[str, int]] | None:
    """A split of ``after`` into base (sum ``base_total``, each within minimum..maximum) plus extra
    (sum ``excess``, each within 0..extra_max), or None when there is none.

    Proof that this is exact. Write a_i for the final value of field i, e_i for its extra,
    b_i = a_i - e_i for its base, B for base_total, X for the excess, m_i and M for the base's
    minimum and maximum, E for extra_max.
    The conditions 0 <= e_i <= E and m_i <= a_i - e_i <= M are, together, lo_i <= e_i <= hi_i with
    lo_i = max(0, a_i - M) and hi_i = min(E, a_i - m_i). Given sum(a) = B + X, the base sums to B
    exactly when the extras sum to X. So a split exists iff sum(a) = B + X, every lo_i <= hi_i, and
    some integer choice of e_i in [lo_i, hi_i] sums to X. The sums reachable are exactly the
    integers of [sum(lo), sum(hi)]: start from every e_i = lo_i and raise one e_i by 1 at a time
    until all are at hi_i; each step adds exactly 1, so every integer between is met, and nothing
    outside the interval is possible. The loop below is that walk, raising the largest fields first,
    so it finds a split whenever one exists.
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
    for a in sorted(rules.names, key=lambda a: -after[a]):
        step = min(missing, bounds[a][1] - extra[a])
        extra[a] += step
        missing -= step
    if missing:
        return None
    return {a: after[a] - extra[a] for a in rules.names}, extra


def _violations(after: Mapping[str, int], excess: int, rules: Bounds) -> list[Violation]:
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
    for a in rules.names:
        if after[a] < rules.minimums[a]:
            found.append(Violation("below_minimum", join("after", a), {
                "field": a, "value": after[a], "minimum": rules.minimums[a],
                "short": rules.minimums[a] - after[a]}))
        elif after[a] > rules.maximum + rules.extra_max:
            found.append(Violation("above_maximum", join("after", a), {
                "field": a, "value": after[a], "limit": rules.maximum + rules.extra_max,
                "maximum": rules.maximum, "extra_max": rules.extra_max,
                "over": after[a] - rules.maximum - rules.extra_max}))
    if found:
        return found
    needed = sum(lo for lo, _ in bounds.values())
    capacity = sum(hi for _, hi in bounds.values())
    if needed > excess:
        above = [a for a in rules.names if bounds[a][0] > 0]
        found.append(Violation("excess_too_small", "after", {
            "fields": above, "maximum": rules.maximum, "needed": needed, "excess": excess,
            "over": needed - excess}))
    elif capacity < excess:
        found.append(Violation("excess_unplaceable", "after", {
            "excess": excess, "capacity": capacity, "extra_max": rules.extra_max,
            "over": excess - capacity}))
    return found


def nearest_legal(after: Mapping[str, int], excess: int, rules: Bounds
                  ) -> dict[str, int] | None:
    """The legal final allocation closest to ``after`` (fewest points moved, then fewest fields
    changed, then the first in field order), by exact search; None when none exists or the
    search space exceeds ``MAX_SPLIT_CANDIDATES``."""
    names = rules.names
    total = rules.base_total + excess
    if not names:
        return None
    ranges = [range(rules.minimums[a], rules.maximum + rules.extra_max + 1) for a in names[:-1]]
    size = 1
    for r in ranges:
        size *= max(1, r.stop - r.start)  # not len(): a range past sys.maxsize has none
        if size > MAX_SPLIT_CANDIDATES:  # the estimate, before any candidate is made
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
    """How to go from ``after`` to ``target``: points moved between fields, added, removed."""
    give: list[tuple[str, int]] = [(a, after[a] - target[a]) for a in names if after[a] > target[a]]
    take: list[tuple[str, int]] = [(a, target[a] - after[a]) for a in names if target[a] > after[a]]
    lines = []
    while give and take:
        amount = min(give[0][1], take[0][1])
        lines.append(Line("move", {"amount": amount, "source": give[0][0], "target": take[0][0]}))
        for side in (give, take):
            side[0] = (side[0][0], side[0][1] - amount)
            if not side[0][1]:
                side.pop(0)
    lines += [Line("remove", {"amount": k, "field": a}) for a, k in give]
    lines += [Line("add", {"amount": k, "field": a}) for a, k in take]
    return lines


def check(plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Check a plan ``{before, after, <gained>, <permission>, <lowered input>, <conversions>...}``
    (the bracketed names from ``setup.fields``) against the rule's parameters."""
    lowered_input = str((setup.fields.get("lowered") or {}).get("input", ""))
    lowered = flag(plan.get(lowered_input, False), lowered_input) if lowered_input else False
    rules = Bounds.from_setup(setup, lowered)
    names = rules.names
    before = keyed(plan.get("before"), names, "before", "field")
    after = keyed(plan.get("after"), names, "after", "field")
    gained_field = setup.field("gained")
    gained = whole(plan.get(gained_field, 0), gained_field)

    points = sum(before.values()) + gained
    excess = max(0, points - rules.base_total)
    conversion = exchange(plan, setup, excess)
    found: list[Violation] = []
    if points < rules.base_total:
        found.append(Violation("points_short", "before", {
            "points": points, "base_total": rules.base_total, "short": rules.base_total - points}))
    found += conversion.violations
    granted, converted = conversion.granted, conversion.converted
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
              **conversion.outputs, "proposal": proposal}
    return Outcome(values, tuple(found), tuple(report))
