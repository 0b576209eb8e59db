"""R9 rarity (procurement.rarity) through engine.run: every row alone, combinations, Ma-GEAR and
vehicle rounding, negative totals, parameter overrides, and refused inputs."""
from __future__ import annotations

import pytest

from interpreter.engine import runner as engine
from interpreter.checks.loading import load_ruleset
from rules_dsl.errors import MprError

RULE = "procurement.rarity"


def item(materials=("鋼",), quality="標準", design=None, ma_gear=None, vehicle=None):
    return {"materials": list(materials), "quality": quality, "design": design,
            "ma_gear": None if ma_gear is None else {"parts": [{"price": p} for p in ma_gear]},
            "vehicle": None if vehicle is None else {"price": vehicle}}


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset()


CASES = [
    ("steel standard", item(), 0, 0),
    ("hardwood", item(["堅木"]), 0, 0),
    ("synthetic fibre", item(["合成繊維"]), 0, 0),
    ("beast leather", item(["獣革"]), 0, 0),
    ("alloy", item(["合金"]), 0, 1),
    ("heavy black iron", item(["重黒鉄"]), 0, 1),
    ("magic wood", item(["魔樹木"]), 0, 1),
    ("magic beast leather", item(["魔獣革"]), 0, 1),
    ("synthetic resin", item(["合成樹脂"]), 0, 1),
    ("reinforced crystal", item(["強化結晶"]), 0, 1),
    ("magic silver thread", item(["魔銀糸"]), 0, 2),
    ("magic shell", item(["魔殻"]), 0, 2),
    ("magic shining silver", item(["魔煌銀"]), 0, 3),
    ("crude", item(quality="粗悪"), 0, -1),
    ("fine", item(quality="上質"), 0, 1),
    ("masterpiece", item(quality="傑作"), 0, 3),
    ("legendary", item(quality="伝説"), 0, 5),
    ("signed", item(design="銘"), 0, 1),
    ("beautiful", item(design="美麗"), 0, 1),
    ("gorgeous", item(design="絢爛"), 0, 2),
    ("one group counts once", item(["合金", "重黒鉄", "魔樹木"]), 0, 1),
    ("several groups", item(["魔煌銀", "魔殻", "合金", "鋼"]), 0, 6),
    ("everything", item(["魔煌銀"], "伝説", "絢爛", [600, 600], 9000), 3, 3 + 5 + 2 + 2 + 4 + 3),
    ("Ma-GEAR 499 rounds down to 0", item(ma_gear=[499]), 0, 0),
    ("Ma-GEAR 500", item(ma_gear=[500]), 0, 1),
    ("Ma-GEAR 300+400 rounds down", item(ma_gear=[300, 400]), 0, 1),
    ("Ma-GEAR without parts", item(ma_gear=[]), 0, 0),
    ("vehicle 1999", item(vehicle=1999), 0, 0),
    ("vehicle 2000", item(vehicle=2000), 0, 1),
    ("vehicle 5999", item(vehicle=5999), 0, 2),
    ("situation down", item(), -2, -2),
    ("crude and situation below zero", item(quality="粗悪"), -3, -4),
    ("situation up", item(["合金"], "上質"), 2, 4),
]


@pytest.mark.parametrize("name, thing, situation, expected", CASES, ids=[c[0] for c in CASES])
def test_rarity(ruleset, name, thing, situation, expected):
    inputs = {"item": thing} if situation == 0 else {"item": thing, "situation": situation}
    assert engine.run(ruleset, RULE, inputs).value == expected


@pytest.mark.parametrize("overrides, thing, expected", [
    ({"rounding": "ceil"}, item(ma_gear=[300, 400]), 2),
    ({"rounding": "round"}, item(ma_gear=[250]), 1),
    ({"rounding": "round"}, item(ma_gear=[249]), 0),
    ({"ma_gear_divisor": 100}, item(ma_gear=[300, 400]), 7),
    ({"vehicle_divisor": 1000}, item(vehicle=2500), 2),
    ({"materials_0": ["堅木", "合成繊維", "獣革"], "materials_1": ["鋼", "合金"]}, item(), 1),
])
def test_parameters_change_the_table(overrides, thing, expected):
    ruleset = load_ruleset(param_overrides={RULE: overrides})
    assert engine.run(ruleset, RULE, {"item": thing}).value == expected


def test_trace_shows_every_row(ruleset):
    result = engine.run(ruleset, RULE, {"item": item(["合金"], "傑作")})
    (rule_step,) = result.trace
    rows = [s for s in rule_step.children if s.kind == "row"]
    assert len(rows) == len(ruleset.rule(RULE).doc["rows"])
    matched = {s.label: s.value for s in rows if s.detail["matched"]}
    assert matched == {"material_1": 1, "quality_masterpiece": 3}


@pytest.mark.parametrize("thing, field, hint", [
    (item(["銅"]), "materials", None),
    (item(["魔煌鋼"]), "materials", "魔煌銀"),
    (item(quality="傑作品"), "quality", "傑作"),
    (item(quality="傑做"), "quality", "傑作"),  # one wrong character of two
    (item(ma_gear=[-500]), "price", None),
    (item(vehicle=-1), "price", None),
])
def test_refused_inputs(ruleset, thing, field, hint):
    with pytest.raises(MprError) as caught:
        engine.run(ruleset, RULE, {"item": thing})
    assert caught.value.code == "MPR500"
    assert field in str(caught.value)
    if hint:
        assert hint in str(caught.value)


@pytest.mark.parametrize("thing, expected", [
    ({"materials": ["鋼"], "quality": "傑作"}, 3),
    ({"materials": ["合金"], "quality": "標準", "design": "絢爛"}, 3),
    ({"materials": ["鋼"], "quality": "標準", "vehicle": {"price": 4000}}, 2),
])
def test_design_ma_gear_and_vehicle_may_be_left_out(ruleset, thing, expected):
    assert engine.run(ruleset, RULE, {"item": thing}).value == expected
