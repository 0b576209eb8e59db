"""The kind RollTable: every table takes ``roll`` (the number rolled at the table) without an
``inputs:`` block, a document's own ``inputs`` add fields to it; rows looked up by an index
(sorted spans) give the same rows as reading them in order; gaps and overlaps found over spans."""
from __future__ import annotations

import random

import pytest

from interpreter.checks.loading import load_ruleset
from interpreter.kinds import roll_table as rt
from interpreter.kinds.roll_table import check
from interpreter.ruleset.model import Rule
from interpreter.solvers.roll_rows import roll_distribution, row_for, row_name, span
from interpreter.engine import runner as engine
from rules_dsl.dice import ScriptedDice
from rules_dsl.errors import MprError, diagnostic
from ruleset_support import manifest, write

WEATHER = """\
id: t.weather
kind: RollTable
source: house
title: {{en: Weather}}
params: {{roll: 1d6}}
{inputs}rows:
  - {{roll: [1, 2], id: clear}}
  - {{roll: [3, 4], id: cloudy}}
  - {{roll: 5, id: rain}}
  - {{roll: 6, id: storm}}
"""

OWN_INPUTS = """\
inputs:
  type: object
  properties:
    season: {type: string}
  additionalProperties: false
"""

OWN_ROLL = """\
inputs:
  type: object
  properties:
    roll: {type: integer, minimum: 3}
  additionalProperties: false
"""


def _ruleset(tmp_path, inputs: str = ""):
    root = write(tmp_path, {"ruleset.yaml": manifest("t"), "t.yaml": WEATHER.format(inputs=inputs)})
    return load_ruleset(root)


@pytest.mark.parametrize("inputs, given, row", [
    ("", {"roll": 4}, "cloudy"),
    ("", {}, "storm"),  # rolled with the dice: 6
    (OWN_INPUTS, {"roll": 1}, "clear"),
    (OWN_INPUTS, {"roll": 5, "season": "winter"}, "rain"),
    (OWN_ROLL, {"roll": 3}, "cloudy"),
], ids=["no inputs block", "no roll given", "own inputs keep roll", "own field beside roll",
        "own definition of roll"])
def test_every_roll_table_takes_roll(tmp_path, inputs: str, given: dict, row: str) -> None:
    value = engine.run(_ruleset(tmp_path, inputs), "t.weather", given, ScriptedDice([6])).value
    assert value["id"] == row and value["roll"] == given.get("roll", 6)


@pytest.mark.parametrize("inputs, given, code, path", [
    ("", {"rol": 4}, "MPR500", "rol"),
    ("", {"roll": "4"}, "MPR500", "roll"),
    (OWN_INPUTS, {"season": 3}, "MPR500", "season"),
    (OWN_ROLL, {"roll": 2}, "MPR500", "roll"),  # the document's own definition wins
    ("", {"roll": 7}, "MPR514", "rows"),
], ids=["misspelt", "not a number", "own field checked", "own minimum", "outside the table"])
def test_roll_input_is_checked(tmp_path, inputs: str, given: dict, code: str, path: str) -> None:
    with pytest.raises(MprError) as raised:
        engine.run(_ruleset(tmp_path, inputs), "t.weather", given, ScriptedDice([6]))
    assert raised.value.code == code and (raised.value.loc.path or "").startswith(path)


def test_bundled_leisure_tables_need_no_inputs_block() -> None:
    ruleset = load_ruleset()
    for table in ("cohabitation.leisure.city", "cohabitation.leisure.wilderness"):
        assert "inputs" not in ruleset.rules[table].doc
        assert engine.run(ruleset, table, {"roll": 7}).value["roll"] == 7


# --- the index and the span checks against reading every number of every row --------------------

def _linear_row_for(rule: Rule, roll: int):
    """The lookup by reading the rows in order, the first listing ``roll`` winning."""
    for row in rule.doc.get("rows") or []:
        lo, hi = span(row["roll"])
        if lo <= roll <= hi:
            return row
    return rule.doc.get("default")


def _format(numbers) -> str:
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _number_by_number(rule: Rule) -> list[tuple[str, str, str]]:
    """Gaps, overlaps, unreachable rows and rows outside ``range`` found number by number: each
    row's numbers as a set, an owner for every number (the reading the span checks replace)."""
    support = {int(v) for v in roll_distribution(rule).support()}
    declared = rule.doc.get("range")
    lo, hi = span(declared) if declared else (min(support), max(support))
    domain = set(range(lo, hi + 1)) | support if declared else support
    found = []
    owner: dict[int, int] = {}
    name = lambda i: row_name(rule, i)  # noqa: E731
    for index, row in enumerate(rule.doc["rows"]):
        a, b = span(row["roll"])
        where = rule.loc("rows", index, "roll")
        if a > b:
            found.append(diagnostic(rt.BAD_SPAN, where, "en", what=f"row {name(index)}", rule=rule.id, lo=a, hi=b))
            continue
        numbers = set(range(a, b + 1))
        for n in sorted(numbers):
            if n in owner:
                found.append(diagnostic(rt.OVERLAP, where, "en", roll=n, rule=rule.id, first=name(owner[n]),
                                        second=name(index)))
                break
        for n in numbers:
            owner.setdefault(n, index)
        if declared and not numbers <= set(range(lo, hi + 1)):
            found.append(diagnostic(rt.OUTSIDE_RANGE, where, "en", row=name(index), rule=rule.id,
                                    rolls=_format(numbers - set(range(lo, hi + 1))), lo=lo, hi=hi))
        elif not numbers & domain:
            found.append(diagnostic(rt.UNREACHABLE, where, "en", row=name(index), rule=rule.id,
                                    roll=rule.params["roll"], rolls=_format(numbers)))
    if rule.doc.get("default") is None and domain - set(owner):
        found.append(diagnostic(rt.GAP, rule.loc("rows"), "en", rule=rule.id, rolls=_format(domain - set(owner))))
    return [(d.code, d.path, d.message) for d in found]


def _random_rule(rng: random.Random) -> Rule:
    sides = rng.choice([4, 6, 8])
    rows = []
    for i in range(rng.randint(1, 7)):
        a = rng.randint(-1, sides + 2)
        b = a + rng.randint(-1, 4)
        rows.append({"roll": a if a == b and rng.random() < 0.5 else [a, b], "id": f"r{i}"})
    doc: dict = {"id": "t.random", "kind": "RollTable", "params": {"roll": f"1d{sides}"}, "rows": rows}
    if rng.random() < 0.3:
        doc["default"] = {"id": "other"}
    if rng.random() < 0.3:
        doc["range"] = [rng.randint(0, 2), sides + rng.randint(0, 2)]
    return Rule("t.random", "RollTable", doc, params=dict(doc["params"]))


@pytest.mark.parametrize("seed", range(40))
def test_index_and_span_checks_agree_with_reading_every_number(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        rule = _random_rule(rng)
        for roll in range(-3, 14):
            assert row_for(rule, roll) is _linear_row_for(rule, roll)
        got = [(d.code, d.path, d.message) for d in check(rule, None, "en")]  # type: ignore[arg-type]
        assert got == _number_by_number(rule), rule.doc
