"""Kind ``RollTable``: a roll (``params.roll``, e.g. ``2d6``) looked up in rows of single numbers or
``[lo, hi]`` ranges; rolls not listed take the ``default``. Several rows may share an ``id`` (the
same event at several numbers). ``range: [lo, hi]`` widens the table's domain past the dice's own
range when adjustments can move a roll there (without it, the roll must depend on ``params``
only). Input ``{roll?}``: the roll made at the table, else ``params.roll`` is rolled. The row lookup
is ``interpreter.solvers.roll_rows`` (other kinds roll on tables too); ``check`` compares the rows
with the exact range of the roll expression.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic
from rules_dsl.words import define_words, localized, vocabulary

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.names import compiled
from interpreter.engine.trace import ProbRow, ProbTable
from interpreter.engine.registry import Kind
from interpreter.solvers.limits import MAX_TABLE_ROLLS
from interpreter.solvers.roll_rows import roll_distribution, row_for, row_name, span, table_range

TOO_MANY_ROLLS = define(
    "MPR162", "{rule}: the rows (and range) cover {rolls} rolls, more than {limit}: a table is checked roll by "
              "roll; write the rows over the rolls the dice can give",
    "{rule}: 行（と range）が {rolls} 通りの出目にわたり、上限 {limit} を超えます。表は出目ごとに検査します。"
    "ダイスが出しうる出目の範囲で行を書いてください")
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


def _format(numbers: list[int]) -> str:
    """``[2, 3, 4, 7]`` -> ``"2-4, 7"``."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Gaps, overlaps, unreachable rows and rows outside ``range``, against the exact dice range."""
    rows = rule.doc.get("rows") or []
    roll_text = str(rule.params.get("roll"))
    try:
        support = {int(v) for v in roll_distribution(rule).support()}
        if any(v != int(v) for v in roll_distribution(rule).support()):
            raise ValueError("fractions")
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
    declared = rule.doc.get("range")
    covered = sum(max(0, b - a + 1) for a, b in (span(r["roll"]) for r in rows)) + \
        (max(0, span(declared)[1] - span(declared)[0] + 1) if declared else 0)
    if covered > MAX_TABLE_ROLLS:  # checked before a set of the rolls is made
        yield diagnostic(TOO_MANY_ROLLS, rule.loc("rows"), lang, rule=rule.id, rolls=covered,
                         limit=MAX_TABLE_ROLLS)
        return
    if declared:
        lo, hi = span(declared)
        if lo > hi:
            yield diagnostic(BAD_SPAN, rule.loc("range"), lang, what="range", rule=rule.id, lo=lo, hi=hi)
            return
        domain = set(range(lo, hi + 1)) | support
    else:
        lo, hi = min(support), max(support)
        domain = support
    owner: dict[int, int] = {}
    for index, row in enumerate(rows):
        a, b = span(row["roll"])
        where = rule.loc("rows", index, "roll")
        if a > b:
            yield diagnostic(BAD_SPAN, where, lang, what=f"row {row_name(rule, index)}",
                             rule=rule.id, lo=a, hi=b)
            continue
        numbers = set(range(a, b + 1))
        for n in sorted(numbers):
            if n in owner:
                yield diagnostic(OVERLAP, where, lang, roll=n, rule=rule.id,
                                 first=row_name(rule, owner[n]), second=row_name(rule, index))
                break
        for n in numbers:
            owner.setdefault(n, index)
        if declared and not numbers <= set(range(lo, hi + 1)):
            outside = sorted(numbers - set(range(lo, hi + 1)))
            yield diagnostic(OUTSIDE_RANGE, where, lang, row=row_name(rule, index), rule=rule.id,
                             rolls=_format(outside), lo=lo, hi=hi)
        elif not numbers & domain:
            yield diagnostic(UNREACHABLE, where, lang, row=row_name(rule, index), rule=rule.id,
                             roll=roll_text, rolls=_format(sorted(numbers)))
    if rule.doc.get("default") is None:
        missing = sorted(domain - set(owner))
        if missing:
            yield diagnostic(GAP, rule.loc("rows"), lang, rule=rule.id, rolls=_format(missing))


def distribution(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> list[ProbTable]:
    """The probability of each roll's row and of each event (rows sharing an id added up)."""
    rolls = roll_distribution(rule)
    by_roll: list[ProbRow] = []
    by_event: dict[str, ProbRow] = {}
    default = rule.doc.get("default")
    for roll, p in rolls.items():
        row = row_for(rule, int(roll))
        if row is default and row is not None:
            key = str(row.get("id") or "default")
        else:
            key = str((row or {}).get("id") or roll)
        label = _label(row, ctx.lang)
        by_roll.append(ProbRow(roll, p, label))
        event = by_event.get(key)
        if event is None:
            by_event[key] = ProbRow(key, p, label)
        else:
            event.p += p
    title, words = rule.title(ctx.lang), vocabulary(WORDS, ctx.lang)
    if default is not None and "default" in by_event and by_event["default"].label is None:
        by_event["default"].label = words["default"]
    return [ProbTable(f"{title}: {rule.params.get('roll')}", by_roll, rolls.mean()),
            ProbTable(f"{title}: {words['events']}", sorted(by_event.values(), key=lambda r: -r.p))]


WORDS = define_words("roll_table", {"events": "by result", "default": "a roll no row lists (default)"},
                     {"events": "結果ごと", "default": "表に載っていない出目（default）"})


def _label(row: dict[str, Any] | None, lang: str) -> str | None:
    if not row:
        return None
    text = row.get("text")
    if isinstance(text, dict):
        return localized(text, lang) or row.get("id")
    return row.get("id") if text is None else str(text)


KIND = Kind(name="RollTable", run=run, check=check, distribution=distribution)
