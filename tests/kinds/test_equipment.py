"""Ma-GEAR without its magic slots (R8): the Equipment kind, as data-driven cases read against the
bundled equipment.yaml (its slot field, effect groups and result flag)."""
from __future__ import annotations

from functools import cache

import pytest
import yaml

from interpreter.engine import runner as engine
from interpreter.kinds import equipment
from interpreter.ruleset.model import Rule
from interpreter.documents.resources import bundled_ruleset
from interpreter.checks.loading import load_ruleset as _load_ruleset
from rules_dsl.errors import MprError


@cache
def load_ruleset(path=None):
    """Each ruleset is loaded once per test session (runs do not change it)."""
    return _load_ruleset(path)


DOC = yaml.safe_load((bundled_ruleset() / "equipment.yaml").read_text(encoding="utf-8"))


def equip(item, available_slots, **params) -> dict:
    merged = {**DOC["params"], **params}
    return equipment.equip(item, available_slots, slots_field=DOC["slots_field"],
                           groups=DOC["effect_groups"],
                           equip_without_slots=merged["equip_without_slots"],
                           active_flag=DOC["active_flag"])


def item(slots: int, base: list[str], gear: list[str]) -> dict:
    return {"slots_required": slots, "base_effects": base, "ma_gear_effects": gear}


# (name, item, available slots, parameter overrides, expected value)
CASES = [
    ("enough slots", item(2, ["grip"], ["blast", "shield"]), 2, {},
     {"equipped": True, "ma_gear_active": True, "active_effects": ["grip", "blast", "shield"]}),
    ("more slots than needed", item(1, ["grip"], ["blast"]), 4, {},
     {"equipped": True, "ma_gear_active": True, "active_effects": ["grip", "blast"]}),
    ("one slot short", item(3, ["grip"], ["blast"]), 2, {},
     {"equipped": True, "ma_gear_active": False, "active_effects": ["grip"]}),
    ("no slots at all", item(2, ["grip", "reach"], ["blast"]), 0, {},
     {"equipped": True, "ma_gear_active": False, "active_effects": ["grip", "reach"]}),
    ("decorative base, too few slots", item(1, [], ["glow"]), 0, {},
     {"equipped": True, "ma_gear_active": False, "active_effects": []}),
    ("decorative base, enough slots", item(1, [], ["glow"]), 1, {},
     {"equipped": True, "ma_gear_active": True, "active_effects": ["glow"]}),
    ("needs no slots", item(0, ["grip"], ["blast"]), 0, {},
     {"equipped": True, "ma_gear_active": True, "active_effects": ["grip", "blast"]}),
    ("effect lists left out", {"slots_required": 1}, 0, {},
     {"equipped": True, "ma_gear_active": False, "active_effects": []}),
    ("a GM who forbids equipping without slots", item(3, ["grip"], ["blast"]), 2,
     {"equip_without_slots": False},
     {"equipped": False, "ma_gear_active": False, "active_effects": []}),
]


@pytest.mark.parametrize("name,the_item,slots,params,expected", CASES, ids=[c[0] for c in CASES])
def test_equip(name, the_item, slots, params, expected) -> None:
    assert equip(the_item, slots, **params) == expected


@pytest.mark.parametrize("the_item,slots,code,path", [
    (item(1, [], []), -1, "MPR761", "available_slots"),
    (item(-2, [], []), 1, "MPR761", "item.slots_required"),
    (item(1, [], []), "2", "MPR760", "available_slots"),
    ({"base_effects": []}, 1, "MPR760", "item.slots_required"),
    (item(1, "grip", []), 1, "MPR760", "item.base_effects"),
    (item(1, [], [3]), 1, "MPR760", "item.ma_gear_effects"),
    ("sword", 1, "MPR760", "item"),
])
def test_bad_item_is_a_coded_error(the_item, slots, code, path) -> None:
    with pytest.raises(MprError) as caught:
        equip(the_item, slots)
    assert (caught.value.code, caught.value.loc.path) == (code, path)
    assert caught.value.message("ja") != caught.value.message("en")


def test_semantic_check_finds_a_repeated_group() -> None:
    doc = {**DOC, "effect_groups": DOC["effect_groups"] + [DOC["effect_groups"][0]]}
    rule = Rule(id="equipment.ma_gear", kind="Equipment", doc=doc, params=DOC["params"])
    assert [d.code for d in equipment.check(rule, None, "en")] == ["MPR762"]
    clean = Rule(id="equipment.ma_gear", kind="Equipment", doc=DOC, params=DOC["params"])
    assert list(equipment.check(clean, None, "en")) == []


def test_through_the_engine() -> None:
    result = engine.run(load_ruleset(), "equipment.ma_gear",
                        {"item": item(2, ["grip"], ["blast"]), "available_slots": 1})
    assert result.value == {"equipped": True, "ma_gear_active": False, "active_effects": ["grip"]}


def test_a_misspelt_effect_field_is_refused() -> None:
    """A typo in the item is an input error naming it, never an item silently without effects."""
    with pytest.raises(MprError) as caught:
        engine.run(load_ruleset(), "equipment.ma_gear",
                   {"item": {"slots_required": 1, "ma_gear_effect": ["blast"]}, "available_slots": 1})
    assert (caught.value.code, caught.value.loc.path) == ("MPR500", "item.ma_gear_effect")
