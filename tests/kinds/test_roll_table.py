"""The kind RollTable: every table takes ``roll`` (the number rolled at the table) without an
``inputs:`` block, a document's own ``inputs`` add fields to it; rows looked up by an index
(sorted spans) give the same rows as reading them in order; gaps and overlaps found over spans."""
from __future__ import annotations

import pytest

from interpreter.checks.loading import load_ruleset
from interpreter.engine import runner as engine
from rules_dsl.dice import ScriptedDice
from rules_dsl.errors import MprError
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
