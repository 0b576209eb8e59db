"""Rows of a roll table as data: each row lists a number or a ``[lo, hi]`` range, a roll is
looked up in them (else the document's ``default``), and the roll expression's exact
distribution and range. Shared by the kinds that roll on tables.

The lookup is an index built once per table: the rows' spans sorted into disjoint segments, each
naming the row it gives (the first listed, where rows overlap), found by bisection; so a table of
n rows costs O(n log n) to index and O(log n) per roll, and the checks of gaps and overlaps work
on spans, never on every number a span lists."""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from rules_dsl.frozen import Record

from interpreter.engine.names import compiled

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from rules_dsl.distribution import Distribution

_INDEX = ("rows", "(index)")  # where a rule keeps its index among its compiled things


def span(roll: Any) -> tuple[int, int]:
    if isinstance(roll, list):
        return int(roll[0]), int(roll[1])
    return int(roll), int(roll)


def row_name(rule: Any, index: int) -> str:
    row = rule.doc["rows"][index]
    return str(row.get("id") or f"#{index + 1}")


def roll_distribution(rule: Any, params: dict[str, Any] | None = None) -> Distribution:
    """The exact distribution of the table's roll expression."""
    params = rule.params if params is None else params
    return compiled(rule, ("params", "roll")).distribution({"params": params})


def roll_weights(rule: Any, params: dict[str, Any] | None = None) -> tuple[list[tuple[Any, int]], int]:
    """The exact distribution of the table's roll expression in whole numbers: its (value, weight)
    pairs in the order of ``Distribution.items`` (by value) and the total the weights are over."""
    # start-up: the distribution's order loads only for a distribution
    from rules_dsl.distribution import by_value

    params = rule.params if params is None else params
    weights, total = compiled(rule, ("params", "roll")).weights({"params": params})
    return by_value(weights), total


def table_range(rule: Any) -> tuple[int, int]:
    """``range`` if declared, else the lowest and highest number the roll can give."""
    declared = rule.doc.get("range")
    if declared:
        return int(declared[0]), int(declared[1])
    weights, _ = compiled(rule, ("params", "roll")).weights({"params": rule.params})
    support = [int(v) for v in weights]  # the lowest and the highest: no order needed
    return min(support), max(support)


def segments(spans: Iterable[tuple[int, int, int]]) -> Iterator[tuple[int, int, int]]:
    """Disjoint ``(lo, hi, owner)`` segments in order, from ``(lo, hi, index)`` spans: each number
    a span lists belongs to the span of the smallest index listing it (the first row listed);
    adjacent segments of one owner are joined; reversed spans list nothing."""
    spans = sorted(s for s in spans if s[0] <= s[1])
    if all(a[1] < b[0] for a, b in zip(spans, spans[1:])):  # disjoint: each span is a segment
        yield from spans
        return
    # start-up: heapq loads only for spans that overlap (a table's usual rows are disjoint)
    import heapq

    points = sorted({lo for lo, _, _ in spans} | {hi + 1 for _, hi, _ in spans})
    active: list[tuple[int, int]] = []  # (index, hi), the smallest index on top
    at = 0
    current: list[int] | None = None
    for here, after in zip(points, points[1:]):
        while at < len(spans) and spans[at][0] <= here:
            heapq.heappush(active, (spans[at][2], spans[at][1]))
            at += 1
        while active and active[0][1] < here:
            heapq.heappop(active)
        if not active:
            continue
        owner = active[0][0]
        if current is not None and current[2] == owner and current[1] == here - 1:
            current[1] = after - 1
            continue
        if current is not None:
            yield current[0], current[1], current[2]
        current = [here, after - 1, owner]
    if current is not None:
        yield current[0], current[1], current[2]


class RowIndex(Record, frozen=True):
    """The rows of a table by roll: ``starts[i]..ends[i]`` gives ``rows[owners[i]]``; any other
    roll the ``default`` (None: no row)."""

    starts: list[int]
    ends: list[int]
    owners: list[int]
    rows: list[dict[str, Any]]
    default: dict[str, Any] | None

    def row_for(self, roll: int) -> dict[str, Any] | None:
        i = bisect_right(self.starts, roll) - 1
        if i >= 0 and roll <= self.ends[i]:
            return self.rows[self.owners[i]]
        return self.default


def row_index(rule: Any) -> RowIndex:
    """The table's index, built once and kept with the rule's compiled things (built again when
    its rows or default are other objects)."""
    rows = rule.doc.get("rows") or []
    default = rule.doc.get("default")
    kept = rule._compiled.get(_INDEX)
    if kept is not None and kept.rows is rows and kept.default is default and len(kept.rows) == kept.size:
        return kept.index
    found = list(segments(row_spans(rows)))
    index = RowIndex([s[0] for s in found], [s[1] for s in found], [s[2] for s in found], rows, default)
    rule._compiled[_INDEX] = _Kept(rows, default, len(rows), index)
    return index


def row_spans(rows: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """``(*span(row["roll"]), index)`` of each row (a single whole number without a call)."""
    out = []
    for i, row in enumerate(rows):
        roll = row["roll"]
        out.append((roll, roll, i) if type(roll) is int else (*span(roll), i))
    return out


class _Kept(Record, frozen=True):
    rows: list[dict[str, Any]]
    default: dict[str, Any] | None
    size: int
    index: RowIndex


_SCANNED = ("rows", "(scanned)")  # a rule's rows were looked through once, without an index


def row_for(rule: Any, roll: int) -> dict[str, Any] | None:
    """The row listing ``roll`` (the first listed, where rows overlap), else the ``default``,
    else None. The first lookup of a table without an index looks through the rows in order (a
    ``run`` of a table of 100,000 rows looks up one roll: sorting them would cost more); the
    next ones use the index (``row_index``), built then."""
    if _INDEX not in rule._compiled and _SCANNED not in rule._compiled:
        rule._compiled[_SCANNED] = True
        for row in rule.doc.get("rows") or []:
            listed = row["roll"]
            lo, hi = (listed, listed) if type(listed) is int else span(listed)
            if lo <= roll <= hi:
                return row
        return rule.doc.get("default")
    return row_index(rule).row_for(roll)
