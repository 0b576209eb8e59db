"""Shared leisure events without repeats (RULES.md R16), as pure functions: resolve one roll
against the shared events already obtained, resolve a whole leisure, and its exact distribution.

The kind ``Leisure`` (``leisure.py``) builds a ``LeisureTable`` from a roll table document and
calls these; nothing here reads documents or dice, so the procedure is tested on its own.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rules_dsl.distribution import Distribution
from rules_dsl.errors import MprError, define
from rules_dsl.limits import MAX_LEISURE_RESIDENTS, MAX_LEISURE_STATES, MAX_LEISURE_TABLE_SPAN

ROLL_OUTSIDE_TABLE = define(
    "MPR540", "roll {roll} of {pc} is outside every row of the table {table} (rows {lo} to {hi})",
    "{pc} の出目 {roll} は表 {table} のどの行にも当てはまりません（行は {lo}〜{hi}）")
TOO_MANY_STATES = define(
    "MPR541", "the exact leisure distribution is too large: more than {limit} {what}",
    "余暇の厳密な確率分布が大きすぎます（{what}が上限 {limit} を超えました）")

AS_ROLLED = "as_rolled"
ADJUSTED = "adjusted"
NEAREST_LOWER = "nearest_lower"
UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class Event:
    """What one roll of the table gives: an event id (None for an unnamed individual event),
    whether it affects every cohabitant, and its text ({ja, en} or None)."""

    id: str | None
    shared: bool
    text: Mapping[str, str] | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class LeisureTable:
    """The events of rolls ``lo..hi``; ``events[i]`` is the event of roll ``lo + i`` (None: no row)."""

    name: str
    lo: int
    hi: int
    events: tuple[Event | None, ...]

    def __post_init__(self) -> None:
        if self.hi - self.lo + 1 != len(self.events):
            raise ValueError("a leisure table needs one entry per roll of its range")

    def event_at(self, roll: int) -> Event | None:
        if self.lo <= roll <= self.hi:
            return self.events[roll - self.lo]
        return None

    def shared_ids(self) -> list[str]:
        """The shared event ids in the order of their first roll."""
        seen: list[str] = []
        for event in self.events:
            if event is not None and event.shared and event.id not in seen:
                seen.append(event.id)  # type: ignore[arg-type]
        return seen


@dataclass(frozen=True)
class Policy:
    """The adjustment window (±``window``) and which of two equal adjustments wins (lower/higher)."""

    window: int
    tie: str = "lower"


@dataclass(frozen=True)
class Resolution:
    """How one PC's roll came out: the final roll and event, how it was reached, and for an
    unresolved roll the (roll, event) options the GM may choose from."""

    rolled: int
    final_roll: int | None
    event: Event | None
    how: str
    options: tuple[tuple[int, Event], ...] = ()


def is_different(event: Event | None, obtained: frozenset[str]) -> bool:
    """A "different result" (R16): a real row that is not a shared event already obtained."""
    return event is not None and not (event.shared and event.id in obtained)


def adjustment_order(roll: int, policy: Policy, span: int) -> Iterable[int]:
    """The rolls the 治安 adjustment may move to, smallest change first, ties per the policy;
    changes beyond ``span`` (the table's width) leave every table and are not tried."""
    for change in range(1, min(abs(policy.window), span) + 1):
        pair = (roll - change, roll + change)
        yield from (pair if policy.tie == "lower" else reversed(pair))


def resolve_roll(table: LeisureTable, roll: int, obtained: frozenset[str], policy: Policy,
                 pc: str = "") -> Resolution:
    """R16 for one roll: as rolled, else the nearest allowed adjustment inside the table's range,
    else the nearest lower roll with a different result, else unresolved with the options."""
    event = table.event_at(roll)
    if event is None:
        raise MprError(ROLL_OUTSIDE_TABLE, pc=pc, roll=roll, table=table.name, lo=table.lo, hi=table.hi)
    if is_different(event, obtained):
        return Resolution(roll, roll, event, AS_ROLLED)
    for candidate in adjustment_order(roll, policy, table.hi - table.lo):
        moved = table.event_at(candidate)
        if is_different(moved, obtained):
            return Resolution(roll, candidate, moved, ADJUSTED)
    for candidate in range(roll - 1, table.lo - 1, -1):
        lower = table.event_at(candidate)
        if is_different(lower, obtained):
            return Resolution(roll, candidate, lower, NEAREST_LOWER)
    options = tuple((r, e) for r in range(table.lo, table.hi + 1)
                    if is_different(e := table.event_at(r), obtained))  # type: ignore[misc]
    return Resolution(roll, None, None, UNRESOLVED, options)


def obtained_after(obtained: frozenset[str], resolution: Resolution) -> frozenset[str]:
    """The shared events obtained once ``resolution`` is applied."""
    event = resolution.event
    if event is not None and event.shared:
        return obtained | {event.id}  # type: ignore[operator]
    return obtained


def resolve_leisure(table: LeisureTable, rolls: Sequence[tuple[str, int]],
                    policy: Policy) -> tuple[list[Resolution], list[str]]:
    """Every PC's roll resolved in the order listed; also the shared events in order obtained."""
    obtained: frozenset[str] = frozenset()
    order: list[str] = []
    results = []
    for pc, roll in rolls:
        resolution = resolve_roll(table, roll, obtained, policy, pc)
        after = obtained_after(obtained, resolution)
        if after != obtained:
            order.append(resolution.event.id)  # type: ignore[union-attr]
        obtained = after
        results.append(resolution)
    return results, order


def outcome_label(resolution: Resolution) -> str | None:
    """The per-PC outcome as counted by the distribution: event id, None (individual) or unresolved."""
    if resolution.how == UNRESOLVED:
        return UNRESOLVED
    return resolution.event.id if resolution.event else None


@dataclass(frozen=True)
class LeisureDistribution:
    """Exact distributions of a leisure for ``residents`` PCs: the set of shared events obtained
    (tuples in table order), each PC's outcome label, and each PC's ``how``."""

    residents: int
    shared_sets: Distribution
    per_resident: tuple[Distribution, ...]
    per_resident_how: tuple[Distribution, ...]

    def event_probability(self, event_id: str) -> Fraction:
        """The chance that the shared event occurs in the leisure."""
        return self.shared_sets.probability(lambda s: event_id in s)


def leisure_distribution(table: LeisureTable, rolls: Distribution, residents: int,
                         policy: Policy) -> LeisureDistribution:
    """The exact distribution of a whole leisure (R16 included): a fold over the PCs whose state is
    the set of shared events obtained so far; each roll is resolved once per reachable state."""
    if residents > MAX_LEISURE_RESIDENTS:
        raise MprError(TOO_MANY_STATES, limit=MAX_LEISURE_RESIDENTS, what="residents")
    if table.hi - table.lo + 1 > MAX_LEISURE_TABLE_SPAN:
        raise MprError(TOO_MANY_STATES, limit=MAX_LEISURE_TABLE_SPAN, what="table rolls")
    for roll in rolls:
        if table.event_at(roll) is None:
            raise MprError(ROLL_OUTSIDE_TABLE, pc="(dice)", roll=roll, table=table.name,
                           lo=table.lo, hi=table.hi)
    memo: dict[tuple[frozenset[str], int], Resolution] = {}

    def resolved(state: frozenset[str], roll: int) -> Resolution:
        key = (state, roll)
        if key not in memo:
            memo[key] = resolve_roll(table, roll, state, policy)
        return memo[key]

    states: dict[frozenset[str], Fraction] = {frozenset(): Fraction(1)}
    per_resident = []
    per_how = []
    for _ in range(residents):
        nxt: dict[frozenset[str], Fraction] = {}
        labels: dict[Any, Fraction] = {}
        hows: dict[str, Fraction] = {}
        for state, p_state in states.items():
            for roll, p_roll in rolls.items():
                resolution = resolved(state, roll)
                p = p_state * p_roll
                after = obtained_after(state, resolution)
                if after not in nxt and len(nxt) >= MAX_LEISURE_STATES:
                    raise MprError(TOO_MANY_STATES, limit=MAX_LEISURE_STATES, what="states")
                nxt[after] = nxt.get(after, Fraction(0)) + p
                label = outcome_label(resolution)
                labels[label] = labels.get(label, Fraction(0)) + p
                hows[resolution.how] = hows.get(resolution.how, Fraction(0)) + p
        states = nxt
        per_resident.append(Distribution(labels))
        per_how.append(Distribution(hows))
    order = {event_id: i for i, event_id in enumerate(table.shared_ids())}
    sets = Distribution({tuple(sorted(s, key=order.__getitem__)): p for s, p in states.items()})
    return LeisureDistribution(residents, sets, tuple(per_resident), tuple(per_how))
