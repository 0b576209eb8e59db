"""A roll table rolled once per member in order, where some rows may come up only once per session:
resolve one roll against the once-only results already taken (move it within a window, else a
fallback), resolve a whole session, and its exact distribution. Before the policy, a member may
change the roll within a window of their own (a ``Shift``: a fixed change, or aim at rows); the
exact distribution is then that of the stated choice. Pure functions: the kind ``RollPerMember``
(``roll_per_member.py``) reads the documents and the dice and calls these.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Hashable

from rules_dsl.frozen import Record, field
from rules_dsl.errors import MprError, define
from rules_dsl.words import bilingual, define_word
from interpreter.solvers.limits import MAX_SESSION_MEMBERS, MAX_SESSION_STATES, MAX_SESSION_TABLE_SPAN

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any, TypeGuard

    from rules_dsl.distribution import Distribution

ROLL_OUTSIDE_TABLE = define(
    "MPR540", "roll {roll} of {member} is outside every row of the table {table} (rows {lo} to {hi})",
    "{member} の出目 {roll} は表 {table} のどの行にも当てはまりません（行は {lo}〜{hi}）")
TOO_MANY_STATES = define(
    "MPR541", "the exact distribution of the session is too large: more than {limit} {what[en]}",
    "一連のロールの厳密な確率分布が大きすぎます（{what[ja]}が上限 {limit} を超えました）")
MEMBERS = define_word("repeat_policy.members", "members", "メンバーの数")
TABLE_ROLLS = define_word("repeat_policy.table_rolls", "table rolls", "表の出目の数")
STATES = define_word("repeat_policy.states", "states", "状態の数")

AS_ROLLED = "as_rolled"
ADJUSTED = "adjusted"
NEAREST_LOWER = "nearest_lower"
NEAREST_HIGHER = "nearest_higher"
INDIVIDUAL = "individual"
UNRESOLVED = "unresolved"
OFF = "off"
FALLBACKS = (NEAREST_LOWER, NEAREST_HIGHER, AS_ROLLED, INDIVIDUAL, UNRESOLVED, OFF)
TIES = ("lower", "higher")


class Entry(Record, frozen=True):
    """What one roll of the table gives: a row id (None for an unnamed row), whether it may come up
    only once per session, and its text ({ja, en} or None)."""

    id: str | None
    once: bool
    text: Mapping[str, str] | None = field(default=None, compare=False)


class TableRows(Record, frozen=True):
    """The entries of rolls ``lo..hi``; ``entries[i]`` is the entry of roll ``lo + i`` (None: no
    row); ``plain`` is what the fallback ``individual`` gives (the table's default), if any."""

    name: str
    lo: int
    hi: int
    entries: tuple[Entry | None, ...]
    plain: Entry | None = None

    def __init__(self, *args: Any, **values: Any) -> None:
        super().__init__(*args, **values)
        if self.hi - self.lo + 1 != len(self.entries):
            raise ValueError("a table needs one entry per roll of its range")

    def entry_at(self, roll: int) -> Entry | None:
        if self.lo <= roll <= self.hi:
            return self.entries[roll - self.lo]
        return None

    def once_ids(self) -> list[str]:
        """The ids of the once-only rows in the order of their first roll."""
        seen: list[str] = []
        for entry in self.entries:
            if entry is not None and entry.once and entry.id not in seen:
                seen.append(entry.id)  # type: ignore[arg-type]
        return seen


class Policy(Record, frozen=True):
    """The move window (±``window``; None: no move) and which of two equal moves wins
    (lower/higher), then the fallback when no move gives a different result."""

    window: int | None
    tie: str = "lower"
    fallback: str = NEAREST_LOWER


class Shift(Record, frozen=True):
    """A member's own change of the roll before the repeat policy, within ±``window``: a fixed
    ``change`` (the roll stays inside the table), or ``aim``: the smallest change (ties per ``tie``)
    that gives the first of these row ids that is reachable and not a once-only row already taken;
    no such row: no change."""

    window: int
    change: int | None = None
    aim: tuple[str, ...] = ()
    tie: str = "lower"


class Resolution(Record, frozen=True):
    """How one member's roll came out: the final roll and entry, how it was reached, and for an
    unresolved roll the (roll, entry) options to choose from; ``shifted`` is the roll after the
    member's own change (None when the member made no choice)."""

    rolled: int
    final_roll: int | None
    entry: Entry | None
    how: str
    options: tuple[tuple[int, Entry], ...] = ()
    shifted: int | None = None


def is_different(entry: Entry | None, taken: frozenset[str]) -> TypeGuard[Entry]:
    """A "different result": a real row that is not a once-only row already taken."""
    return entry is not None and not (entry.once and entry.id in taken)


def move_order(roll: int, policy: Policy, span: int, rolled: int | None = None) -> Iterable[int]:
    """The rolls a move may go to, smallest change from ``roll`` first, ties per the policy;
    changes beyond ``span`` (the table's width) leave every table and are not tried. When the
    member changed the roll as ``rolled`` into ``roll``, the move re-chooses that change: it stays
    within ±window of ``rolled``."""
    window = abs(policy.window or 0)
    origin = roll if rolled is None else rolled
    for change in range(1, min(window + abs(roll - origin), span) + 1):
        pair = (roll - change, roll + change)
        yield from (c for c in (pair if policy.tie == "lower" else reversed(pair))
                    if abs(c - origin) <= window)


def shifted_roll(table: TableRows, roll: int, taken: frozenset[str], shift: Shift) -> int:
    """The roll after the member's own change (see ``Shift``), inside the table's range."""
    if shift.change is not None:
        return min(max(roll + shift.change, table.lo), table.hi)
    for target in shift.aim:
        for change in range(0, shift.window + 1):
            pair = (roll - change, roll + change) if change else (roll,)
            for candidate in pair if shift.tie == "lower" else reversed(pair):
                entry = table.entry_at(candidate)
                if entry is not None and entry.id == target and is_different(entry, taken):
                    return candidate
    return roll


def _options(table: TableRows, taken: frozenset[str]) -> tuple[tuple[int, Entry], ...]:
    return tuple((r, e) for r in range(table.lo, table.hi + 1)
                 if is_different(e := table.entry_at(r), taken))


def resolve_roll(table: TableRows, roll: int, taken: frozenset[str], policy: Policy,
                 member: str = "", shift: Shift | None = None) -> Resolution:
    """One roll: changed by the member's ``shift`` if any; then as it stands, else the nearest
    allowed move inside the table's range, else the policy's fallback (the nearest lower or higher
    different result, the roll as it stands, the table's plain row, or unresolved with the
    options)."""
    if table.entry_at(roll) is None:
        raise MprError(ROLL_OUTSIDE_TABLE, member=member, roll=roll, table=table.name, lo=table.lo,
                       hi=table.hi)
    chosen = roll if shift is None else shifted_roll(table, roll, taken, shift)
    entry = table.entry_at(chosen)
    mark = None if shift is None else chosen

    def result(final: int | None, at: Entry | None, how: str,
               options: tuple[tuple[int, Entry], ...] = ()) -> Resolution:
        return Resolution(roll, final, at, how, options, mark)

    if is_different(entry, taken):
        return result(chosen, entry, AS_ROLLED)
    if policy.window is not None:
        for candidate in move_order(chosen, policy, table.hi - table.lo, roll):
            moved = table.entry_at(candidate)
            if is_different(moved, taken):
                return result(candidate, moved, ADJUSTED)
    if policy.fallback in (AS_ROLLED, OFF):
        return result(chosen, entry, AS_ROLLED)
    if policy.fallback == INDIVIDUAL and table.plain is not None:
        return result(chosen, table.plain, INDIVIDUAL)
    if policy.fallback in (NEAREST_LOWER, NEAREST_HIGHER):
        step = -1 if policy.fallback == NEAREST_LOWER else 1
        end = table.lo - 1 if step < 0 else table.hi + 1
        for candidate in range(chosen + step, end, step):
            near = table.entry_at(candidate)
            if is_different(near, taken):
                return result(candidate, near, policy.fallback)
    return result(None, None, UNRESOLVED, _options(table, taken))


def taken_after(taken: frozenset[str], resolution: Resolution) -> frozenset[str]:
    """The once-only rows taken once ``resolution`` is applied."""
    entry = resolution.entry
    if entry is not None and entry.once and entry.id is not None:
        return taken | {entry.id}
    return taken


def resolve_session(table: TableRows, rolls: Sequence[tuple[str, int]], policy: Policy,
                    shifts: Sequence[Shift | None] | None = None) -> tuple[list[Resolution], list[str]]:
    """Every member's roll resolved in the order listed (each changed by its member's shift, if
    any); also the once-only rows in order taken."""
    taken: frozenset[str] = frozenset()
    order: list[str] = []
    results = []
    for index, (member, roll) in enumerate(rolls):
        resolution = resolve_roll(table, roll, taken, policy, member,
                                  None if shifts is None else shifts[index])
        after = taken_after(taken, resolution)
        if after != taken and resolution.entry is not None and resolution.entry.id is not None:
            order.append(resolution.entry.id)
        taken = after
        results.append(resolution)
    return results, order


def outcome_label(resolution: Resolution) -> str | None:
    """A member's outcome as counted by the distribution: row id, None (unnamed) or unresolved."""
    if resolution.how == UNRESOLVED:
        return UNRESOLVED
    return resolution.entry.id if resolution.entry else None


class SessionDistribution(Record, frozen=True):
    """Exact distributions of a session of ``members`` rolls: the set of once-only rows taken
    (tuples in table order), each member's outcome label, and how each member's roll was resolved."""

    members: int
    taken_sets: Distribution
    per_member: tuple[Distribution, ...]
    per_member_how: tuple[Distribution, ...]

    def row_probability(self, row_id: str) -> Fraction:
        """The chance that the once-only row comes up in the session."""
        return self.taken_sets.probability(lambda s: row_id in s)


def session_distribution(table: TableRows, rolls: Distribution, members: int, policy: Policy,
                         shifts: Sequence[Shift | None] | None = None) -> SessionDistribution:
    """The exact distribution of a whole session (each member's stated shift and the repeat policy
    included): a fold over the members whose state is the set of once-only rows taken so far; each
    roll is resolved once per reachable state and shift."""
    if members > MAX_SESSION_MEMBERS:
        raise MprError(TOO_MANY_STATES, limit=MAX_SESSION_MEMBERS, what=bilingual(MEMBERS))
    if table.hi - table.lo + 1 > MAX_SESSION_TABLE_SPAN:
        raise MprError(TOO_MANY_STATES, limit=MAX_SESSION_TABLE_SPAN, what=bilingual(TABLE_ROLLS))
    for roll in rolls:
        if table.entry_at(roll) is None:
            raise MprError(ROLL_OUTSIDE_TABLE, member="(dice)", roll=roll, table=table.name,
                           lo=table.lo, hi=table.hi)
    memo: dict[tuple[frozenset[str], int, Shift | None], Resolution] = {}

    def resolved(state: frozenset[str], roll: int, shift: Shift | None) -> Resolution:
        key = (state, roll, shift)
        if key not in memo:
            memo[key] = resolve_roll(table, roll, state, policy, shift=shift)
        return memo[key]

    # start-up: fractions and distributions load only for an exact distribution (a run needs none)
    from fractions import Fraction
    from rules_dsl.distribution import Distribution

    states: dict[frozenset[str], Fraction] = {frozenset(): Fraction(1)}
    per_member = []
    per_how = []
    for index in range(members):
        shift = None if shifts is None else shifts[index]
        nxt: dict[frozenset[str], Fraction] = {}
        labels: dict[Any, Fraction] = {}
        hows: dict[Hashable, Fraction] = {}
        for state, p_state in states.items():
            for roll, p_roll in rolls.items():
                resolution = resolved(state, roll, shift)
                p = p_state * p_roll
                after = taken_after(state, resolution)
                if after not in nxt and len(nxt) >= MAX_SESSION_STATES:
                    raise MprError(TOO_MANY_STATES, limit=MAX_SESSION_STATES, what=bilingual(STATES))
                nxt[after] = nxt.get(after, Fraction(0)) + p
                label = outcome_label(resolution)
                labels[label] = labels.get(label, Fraction(0)) + p
                hows[resolution.how] = hows.get(resolution.how, Fraction(0)) + p
        states = nxt
        per_member.append(Distribution(labels))
        per_how.append(Distribution(hows))
    order = {row_id: i for i, row_id in enumerate(table.once_ids())}
    sets = Distribution({tuple(sorted(s, key=order.__getitem__)): p for s, p in states.items()})
    return SessionDistribution(members, sets, tuple(per_member), tuple(per_how))
