"""Kind ``RollTable``: a roll (``params.roll``, e.g. ``2d6``) looked up in rows of single numbers or
``[lo, hi]`` ranges; rolls not listed take the ``default``. Several rows may share an ``id`` (the
same event at several numbers). ``range: [lo, hi]`` widens the table's domain past the dice's own
range when adjustments can move a roll there (without it, the roll must depend on ``params``
only). Input ``{roll?}``: the roll made at the table, else ``params.roll`` is rolled; every
RollTable takes it without an ``inputs:`` block (``Kind.inputs``; a document's own ``inputs`` add
fields). The row lookup
is ``interpreter.solvers.roll_rows`` (other kinds roll on tables too); ``check`` compares the rows
with the exact range of the roll expression.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic
from rules_dsl.words import define_words, localized, vocabulary

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.names import compiled
from interpreter.engine.trace import ProbTable
from interpreter.engine.registry import Kind
from interpreter.solvers.roll_rows import (roll_weights, row_for, row_index, row_name, row_spans, segments,
                                          span, table_range)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

OUTSIDE_TABLE = define(
    "MPR514", "roll {roll} is outside table {rule} ({lo} to {hi})",
    "出目 {roll} は表 {rule} の範囲（{lo}〜{hi}）の外です")
NO_ROW = define(
    "MPR515", "table {rule} has no row and no default for roll {roll}",
    "表 {rule} には出目 {roll} の行もデフォルトもありません")
NOT_A_ROLL = define(
    "MPR516", "the roll of table {rule} is {value!r}, not a whole number",
    "表 {rule} の出目 {value!r} が整数ではありません")
GAP = define(
    "MPR370", "table {rule} has no row and no default for reachable roll(s) {rolls}",
    "表 {rule} には到達しうる出目 {rolls} の行もデフォルトもありません")
OVERLAP = define(
    "MPR371", "roll {roll} of table {rule} is listed twice: rows {first} and {second}",
    "表 {rule} の出目 {roll} が二重に載っています: 行 {first} と {second}")
UNREACHABLE = define(
    "MPR372", "row {row} of table {rule} can never come up: {roll} cannot roll {rolls}",
    "表 {rule} の行 {row} は決して出ません: {roll} で {rolls} は出ません", severity="warning")
OUTSIDE_RANGE = define(
    "MPR373", "row {row} of table {rule} lists {rolls}, outside the table's range {lo} to {hi}",
    "表 {rule} の行 {row} の {rolls} は表の範囲 {lo}〜{hi} の外です")
BAD_SPAN = define(
    "MPR374", "{what} of table {rule} is [{lo}, {hi}]: the first number must not exceed the second",
    "表 {rule} の {what} が [{lo}, {hi}] です。最初の数は2番目以下でなければなりません")
NO_ROLL_RANGE = define(
    "MPR375", "the roll {roll!r} of table {rule} does not give whole numbers: {detail}",
    "表 {rule} のロール {roll!r} が整数を出しません: {detail}")


def _text(entry: dict[str, Any]) -> Any:
    return entry.get("text")


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    roll = inputs.get("roll")
    if roll is None:
        ctx.param(rule, "roll")
        mark = ctx.dice.mark()
        expression = compiled(rule, ("params", "roll"))
        roll = expression.evaluate({**inputs, "params": rule.params}, ctx.dice)
        dice = [d.value for d in ctx.dice.since(mark)]
        ctx.trace.add("dice", f"{expression.text} {dice}", roll, expr=expression.text, dice=dice)
    else:
        ctx.trace.add("input", "roll", roll)
    if isinstance(roll, bool) or not isinstance(roll, int):
        raise MprError(NOT_A_ROLL, rule.loc("params", "roll"), rule=rule.id, value=roll)
    lo, hi = table_range(rule)
    if not lo <= roll <= hi:
        raise MprError(OUTSIDE_TABLE, rule.loc("rows"), rule=rule.id, roll=roll, lo=lo, hi=hi)
    row = row_for(rule, roll)
    if row is None:
        raise MprError(NO_ROW, rule.loc("rows"), rule=rule.id, roll=roll)
    listed = row is not rule.doc.get("default")
    value = {"roll": roll, "id": row.get("id"), "text": _text(row), "value": row.get("value")}
    ctx.trace.add("row", str(row.get("id") or roll), value["value"], matched=True,
                  default=not listed, text=_text(row))
    return value


def _format_spans(spans: list[tuple[int, int]]) -> str:
    """Sorted disjoint ``[(2, 4), (7, 7)]`` -> ``"2-4, 7"``."""
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted and joined where they touch or overlap."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _minus(whole: list[tuple[int, int]], taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of the merged spans ``whole`` outside the merged spans ``taken``."""
    out: list[tuple[int, int]] = []
    j = 0
    for a, b in whole:
        while j < len(taken) and taken[j][1] < a:
            j += 1
        k, here = j, a
        while k < len(taken) and taken[k][0] <= b:
            if taken[k][0] > here:
                out.append((here, taken[k][0] - 1))
            here = max(here, taken[k][1] + 1)
            k += 1
        if here <= b:
            out.append((here, b))
    return out


def _meets(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    """Whether ``[a, b]`` shares a number with the merged spans."""
    i = bisect_right(spans, (b, math.inf)) - 1  # the last span starting at or before b
    return i >= 0 and spans[i][1] >= a


def _overlaps(spans: list[tuple[int, int, int]]) -> dict[int, tuple[int, int]]:
    """For each row (``(lo, hi, index)`` spans in listed order) listing a number an earlier-listed
    row lists too: the smallest such number and the first row listing it. The rows listed so far
    are kept as merged spans (each row merges into them once, by bisection). Rows listed in
    order, each after the one before (the usual table), overlap nowhere: nothing is merged."""
    if all(x[1] < y[0] for x, y in zip(spans, spans[1:])):
        return {}
    owned = list(segments(spans))
    firsts = [seg[0] for seg in owned]
    starts: list[int] = []
    ends: list[int] = []
    found: dict[int, tuple[int, int]] = {}
    for a, b, index in spans:
        i = bisect_left(ends, a)  # the first merged span ending at or after a
        if i < len(starts) and starts[i] <= b:
            n = max(a, starts[i])
            found[index] = (n, owned[bisect_right(firsts, n) - 1][2])
        low, high = bisect_left(ends, a - 1), bisect_right(starts, b + 1)
        if low < high:
            a, b = min(a, starts[low]), max(b, ends[high - 1])
        starts[low:high], ends[low:high] = [a], [b]
    return found


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Gaps, overlaps, unreachable rows and rows outside ``range``, against the exact dice range;
    over the rows' spans (sorted once), never over every number a span lists."""
    rows = rule.doc.get("rows") or []
    roll_text = str(rule.params.get("roll"))
    try:
        values = [v for v, _ in roll_weights(rule)[0]]
        if {type(v) for v in values} != {int} and any(v != int(v) for v in values):
            raise ValueError("fractions")
        support = sorted({int(v) for v in values})
    except MprError as error:
        if error.code.startswith("MPR1"):
            return  # an expression error, reported by the expression check
        yield diagnostic(NO_ROLL_RANGE, rule.loc("params", "roll"), lang, rule=rule.id,
                         roll=roll_text, detail=error.message(lang))
        return
    except (TypeError, ValueError) as error:
        yield diagnostic(NO_ROLL_RANGE, rule.loc("params", "roll"), lang, rule=rule.id,
                         roll=roll_text, detail=str(error))
        return
    reachable = _merged([(n, n) for n in support])
    declared = rule.doc.get("range")
    if declared:
        lo, hi = span(declared)
        if lo > hi:
            yield diagnostic(BAD_SPAN, rule.loc("range"), lang, what="range", rule=rule.id, lo=lo, hi=hi)
            return
        domain = _merged(reachable + [(lo, hi)])
    else:
        lo, hi = support[0], support[-1]
        domain = reachable
    spans = row_spans(rows)
    overlaps = _overlaps([s for s in spans if s[0] <= s[1]])
    first_reach, last_reach = domain[0][0], domain[-1][1]  # a row inside them and in one span meets it
    for a, b, index in spans:
        if a <= b and index not in overlaps and not (declared and (a < lo or b > hi)) and (
                (len(domain) == 1 and first_reach <= a and b <= last_reach) or _meets(domain, a, b)):
            continue  # the usual row: nothing to say (its place is looked up only for a finding)
        where = rule.loc("rows", index, "roll")
        if a > b:
            yield diagnostic(BAD_SPAN, where, lang, what=f"row {row_name(rule, index)}",
                             rule=rule.id, lo=a, hi=b)
            continue
        if index in overlaps:
            roll, first = overlaps[index]
            yield diagnostic(OVERLAP, where, lang, roll=roll, rule=rule.id,
                             first=row_name(rule, first), second=row_name(rule, index))
        if declared and (a < lo or b > hi):
            outside = ([(a, min(b, lo - 1))] if a < lo else []) + ([(max(a, hi + 1), b)] if b > hi else [])
            yield diagnostic(OUTSIDE_RANGE, where, lang, row=row_name(rule, index), rule=rule.id,
                             rolls=_format_spans(outside), lo=lo, hi=hi)
        elif not _meets(domain, a, b):
            yield diagnostic(UNREACHABLE, where, lang, row=row_name(rule, index), rule=rule.id,
                             roll=roll_text, rolls=_format_spans([(a, b)]))
    if rule.doc.get("default") is None:
        missing = _minus(domain, _merged([(a, b) for a, b, _ in spans if a <= b]))
        if missing:
            yield diagnostic(GAP, rule.loc("rows"), lang, rule=rule.id, rolls=_format_spans(missing))


def distribution(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> list[ProbTable]:
    """The probability of each roll's row and of each event (rows sharing an id added up). One
    pass over the rolls in order, in whole numbers over the roll's total: each roll's row found
    by walking the table's segments alongside (both are sorted), each row's event and label made
    once, the events summed and ordered, the mean taken; the tables are kept as columns
    (``ProbTable.counted``), with no object per roll."""
    # start-up: fractions loads only for a distribution (a run of the table needs none)
    from fractions import Fraction

    items, total = roll_weights(rule)
    index = row_index(rule)
    starts, ends, owners, rows = index.starts, index.ends, index.owners, index.rows
    default = rule.doc.get("default")
    default_key = str(default.get("id") or "default") if default is not None else None
    whole = all(type(v) is int for v, _ in items)  # then in increasing order, as the segments
    last = len(starts) - 1
    at = 0  # the first segment that may hold the roll
    made: dict[int, tuple[str | None, str | None]] = {}  # a row's event (None: its roll) and label
    values: list[Any] = []
    weights: list[int] = []
    labels: list[str | None] = []
    weight: dict[str, int] = {}  # each event's weight over ``total``, in the order first rolled
    event_labels: dict[str, str | None] = {}
    for roll, w in items:
        if whole:
            while at <= last and ends[at] < roll:
                at += 1
            row = rows[owners[at]] if at <= last and starts[at] <= roll else default
        else:
            row = index.row_for(int(roll))
        found = made.get(id(row))
        if found is None:
            if row is None:
                found = (None, None)
            elif row is default:
                found = (default_key, _label(row, ctx.lang))
            else:
                found = (str(row["id"]) if row.get("id") else None, _label(row, ctx.lang))
            made[id(row)] = found
        key, label = found
        if key is None:
            key = str(roll)
        values.append(roll)
        weights.append(w)
        labels.append(label)
        if key in weight:
            weight[key] += w
        else:
            weight[key] = w
            event_labels[key] = label
    title, words = rule.title(ctx.lang), vocabulary(WORDS, ctx.lang)
    if default is not None and event_labels.get("default", "") is None:
        event_labels["default"] = words["default"]
    numbers = whole or all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _ in items)
    mean = Fraction(sum(v * w for v, w in items), total) if numbers else None
    ordered = sorted(weight, key=weight.__getitem__, reverse=True)  # stable: ties as first rolled
    return [ProbTable.counted(f"{title}: {rule.params.get('roll')}", values, weights, total, labels, mean),
            ProbTable.counted(f"{title}: {words['events']}", ordered, [weight[k] for k in ordered],
                              total, [event_labels[k] for k in ordered])]


WORDS = define_words("roll_table", {"events": "by result", "default": "a roll no row lists (default)"},
                     {"events": "結果ごと", "default": "表に載っていない出目（default）"})


def _label(row: dict[str, Any] | None, lang: str) -> str | None:
    if not row:
        return None
    text = row.get("text")
    if isinstance(text, dict):
        return localized(text, lang) or row.get("id")
    return row.get("id") if text is None else str(text)


KIND = Kind(name="RollTable", run=run, check=check, distribution=distribution,
            inputs={"roll": {"type": "integer",
                             "description": "the roll made at the table (absent: rolled with params.roll)"}})
