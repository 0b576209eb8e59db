"""Cover (R6) and holding back (R7): the CombatAction kind on battle states, as data-driven cases.

Steps, range, timing, cost and effects are read from the bundled combat.yaml."""
from __future__ import annotations

import copy

from functools import cache

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.engine import runner as engine
from interpreter.kinds import combat_action
from interpreter.kinds.combat_action import area_distance
from interpreter.ruleset.model import Rule
from interpreter.documents.resources import bundled_ruleset
from interpreter.checks.loading import load_ruleset as _load_ruleset
from rules_dsl import compile_expression
from rules_dsl.errors import MprError


@cache
def load_ruleset(path=None):
    """Each ruleset is loaded once per test session (runs do not change it)."""
    return _load_ruleset(path)


DOCS = {doc["id"]: doc for doc in
        yaml.safe_load_all((bundled_ruleset() / "combat.yaml").read_text(encoding="utf-8"))}
COVER = DOCS["combat.cover"]
HOLD_BACK = DOCS["combat.hold_back"]

LINE = {"areas": ["front", "middle", "rear", "far"]}
# Listed in an order that differs from the paths: hall-roof are 2 apart, hall-cellar 1, tower alone.
GRAPH = {"areas": ["hall", "roof", "cellar", "stairs", "tower"],
         "adjacent": [["hall", "stairs"], ["stairs", "roof"], ["cellar", "hall"]]}


def battle(field: dict, user_area: str, target_area: str, *, acted: bool = False,
           turn_started: bool = False, step: str = "damage_calculation") -> dict:
    first = field["areas"][0]
    return {**copy.deepcopy(field), "round": 1, "characters": [
        {"id": "knight", "area": user_area, "hp": 20, "acted": acted, "turn_started": turn_started},
        {"id": "mage", "area": target_area, "hp": 8, "acted": False, "turn_started": False},
        {"id": "ogre", "area": first, "hp": 30, "acted": True, "turn_started": True},
    ], "attack": {"attacker": "ogre", "target": "mage", "step": step}}


def cover(state: dict, user: str = "knight", lang: str = "en", **overrides) -> dict:
    params = {**COVER["params"], **overrides}
    return combat_action.resolve_in_battle(
        state, user=user, declared_before=params["declared_before"],
        range_areas=params["range_areas"], steps=params["steps"], effects=COVER["effects"],
        action="cover", lang=lang)


@pytest.mark.parametrize("field,a,b,distance", [
    (LINE, "front", "front", 0), (LINE, "front", "middle", 1), (LINE, "front", "far", 3),
    (LINE, "far", "middle", 2),
    (GRAPH, "hall", "roof", 2), (GRAPH, "roof", "cellar", 3), (GRAPH, "cellar", "hall", 1),
    (GRAPH, "hall", "tower", None),
    ({"areas": ["a", "b"], "adjacent": []}, "a", "b", None),
])
def test_area_distance(field, a, b, distance) -> None:
    assert area_distance(field["areas"], field.get("adjacent"), a, b) == distance


# (name, battle, legal, user_after (acted, stays), target receives the attack, [(code, path)])
COVERS = [
    ("line: same area", battle(LINE, "rear", "rear"), True, (True, False), False, []),
    ("line: one area away", battle(LINE, "middle", "rear"), True, (True, False), False, []),
    ("line: two areas away", battle(LINE, "front", "rear"), False, (False, False), True,
     [("MPR727", "user")]),
    ("graph: next in the list but two paths away", battle(GRAPH, "hall", "roof"), False,
     (False, False), True, [("MPR727", "user")]),
    ("graph: far in the list but linked", battle(GRAPH, "cellar", "hall"), True, (True, False),
     False, []),
    ("graph: not connected", battle(GRAPH, "tower", "hall"), False, (False, False), True,
     [("MPR727", "user")]),
    ("before the user's turn: becomes acted", battle(LINE, "rear", "rear"), True, (True, False),
     False, []),
    ("after the user's turn: stays acted next round",
     battle(LINE, "rear", "rear", acted=True, turn_started=True), True, (True, True), False, []),
    ("during the user's own turn: no change",
     battle(LINE, "rear", "rear", acted=False, turn_started=True), True, (False, False), False, []),
    ("already acted by an earlier cover: stays acted next round",
     battle(LINE, "rear", "rear", acted=True, turn_started=False), True, (True, True), False, []),
    ("wrong step: before the attack check", battle(LINE, "rear", "rear", step="attack_check"),
     False, (False, False), True, [("MPR726", "attack.step")]),
    ("wrong step and out of range", battle(LINE, "front", "far", step="attack_check"), False,
     (False, False), True, [("MPR726", "attack.step"), ("MPR727", "user")]),
]


@pytest.mark.parametrize("name,state,legal,user_after,receives,reasons", COVERS,
                         ids=[case[0] for case in COVERS])
def test_cover(name, state, legal, user_after, receives, reasons) -> None:
    result = cover(state)
    assert result["legal"] is legal
    assert result["user_after"] == {"acted": user_after[0], "stays_acted_next_round": user_after[1]}
    assert result["target_after"]["id"] == "mage"
    assert result["target_after"]["hp"] == 8
    assert result["target_after"]["receives_attack"] is receives
    assert [(e["code"], e["path"]) for e in result["errors"]] == reasons


def test_cover_oneself_is_not_cover() -> None:
    result = cover(battle(LINE, "rear", "rear"), user="mage")
    assert [e["code"] for e in result["errors"]] == ["MPR728"]


def test_wider_range_in_a_variant() -> None:
    assert cover(battle(LINE, "front", "rear"), range_areas=2)["legal"] is True


def test_reasons_speak_japanese() -> None:
    result = cover(battle(LINE, "front", "far", step="attack_check"), lang="ja")
    assert [e["message"] for e in result["errors"]] == [
        "cover は「ダメージの算出」の直前に宣言するものですが、攻撃は「攻撃判定」の段階です",
        "knight から mage までは 3エリアです。cover は 1エリア以内のキャラクターにしか使えません"]


@pytest.mark.parametrize("user_area, lang, message", [
    ("tower", "ja", "knight と mage のエリアはつながっていません。cover は 1エリア以内のキャラクターにしか使えません"),
    ("tower", "en", "knight and mage are in areas that are not connected; cover reaches 1 area(s)"),
    ("roof", "ja", "knight から mage までは 2エリアです。cover は 1エリア以内のキャラクターにしか使えません"),
    ("roof", "en", "knight is 2 area(s) from mage; cover reaches 1 area(s)"),
])
def test_out_of_range_reads_as_a_sentence(user_area: str, lang: str, message: str) -> None:
    result = cover(battle(GRAPH, user_area, "hall"), lang=lang)
    assert [e["message"] for e in result["errors"]] == [message]


def _broken(change) -> dict:
    state = battle(GRAPH, "hall", "hall")
    change(state)
    return state


# (name, battle, user, code, location path)
BAD_COVERS = [
    ("unknown step", battle(LINE, "rear", "rear", step="damage_roll"), "knight", "MPR721",
     "attack.step"),
    ("user not in battle", battle(LINE, "rear", "rear"), "paladin", "MPR720", "user"),
    ("target not in battle", _broken(lambda s: s["attack"].update(target="ghost")), "knight",
     "MPR720", "attack.target"),
    ("attacker not in battle", _broken(lambda s: s["attack"].update(attacker="ghost")), "knight",
     "MPR720", "attack.attacker"),
    ("character in an unknown area", _broken(lambda s: s["characters"][1].update(area="moon")),
     "knight", "MPR722", "characters[1].area"),
    ("adjacency naming an unknown area", _broken(lambda s: s["adjacent"].append(["hall", "moon"])),
     "knight", "MPR722", "adjacent[3][1]"),
    ("adjacency not a pair", _broken(lambda s: s["adjacent"].append(["hall"])), "knight", "MPR724",
     "adjacent[3]"),
    ("a character twice", _broken(lambda s: s["characters"].append(dict(s["characters"][0]))),
     "knight", "MPR723", "characters[3].id"),
    ("an area twice", _broken(lambda s: s["areas"].append("hall")), "knight", "MPR723", "areas"),
    ("no areas", _broken(lambda s: s.update(areas=[])), "knight", "MPR724", "areas"),
    ("hp not a number", _broken(lambda s: s["characters"][0].update(hp="20")), "knight", "MPR724",
     "characters[0].hp"),
    ("acted missing", _broken(lambda s: s["characters"][0].pop("acted")), "knight", "MPR724",
     "characters[0].acted"),
    ("no attack", _broken(lambda s: s.pop("attack")), "knight", "MPR724", "attack"),
]


@pytest.mark.parametrize("name,state,user,code,path", BAD_COVERS, ids=[c[0] for c in BAD_COVERS])
def test_bad_battle_is_a_coded_error(name, state, user, code, path) -> None:
    with pytest.raises(MprError) as caught:
        cover(state, user=user)
    assert caught.value.code == code
    assert caught.value.loc.path == path
    assert caught.value.message("ja") != caught.value.message("en")


def hold_back(target_hp, damage, declared, **overrides) -> dict:
    params = {**HOLD_BACK["params"], **overrides}
    effects = [combat_action.DamageEffect(
        e["effect"], e["param"],
        compile_expression(str(params[e["param"]])) if e["effect"] == "damage" else params[e["param"]])
        for e in HOLD_BACK["effects"]]
    return combat_action.resolve_damage(target_hp, damage, declared, effects=effects,
                                        action_cost=params["action_cost"], declared_by="hold_back",
                                        rule_id="combat.hold_back", env={"params": params})


@pytest.mark.parametrize("target_hp,damage,declared,hp_after", [
    (5, 5, True, 0),     # exactly 0
    (5, 6, True, 0),     # one below 0 is held at 0
    (5, 12, True, 0),    # far below 0 is held at 0
    (5, 12, False, -7),  # without holding back HP goes below 0
    (5, 5, False, 0),
    (10, 4, True, 6),    # damage above the floor is dealt in full
    (5, 0, True, 5),
    (0, 3, True, 0),
    (-3, 4, True, -3),   # already below 0: this attack cannot push it lower, nor heal it
    (-3, 4, False, -7),
])
def test_hold_back(target_hp, damage, declared, hp_after) -> None:
    assert hold_back(target_hp, damage, declared) == {"hp_after": hp_after, "action_cost": 0}


def test_hold_back_floor_is_a_parameter() -> None:
    assert hold_back(5, 9, True, hp_floor=1)["hp_after"] == 1


# (target HP, damage, declared, parameter overrides, HP after): the damage formula and the floor
DAMAGE_RULES = [
    (20, 9, True, {"declared_damage": "floor(damage / 2)", "hp_floor": None}, 16),
    (3, 9, True, {"declared_damage": "floor(damage / 2)", "hp_floor": None}, -1),
    (3, 9, False, {"declared_damage": "floor(damage / 2)", "hp_floor": None}, -6),
    (3, 9, True, {"declared_damage": "ceil(damage / 2)", "hp_floor": 0}, 0),
    (10, 9, True, {"declared_damage": "max(damage - 3, 0)"}, 4),
    (5, 12, True, {"hp_floor": None}, -7),
]


@pytest.mark.parametrize("target_hp,damage,declared,overrides,hp_after", DAMAGE_RULES)
def test_damage_formula_and_floor_are_data(target_hp, damage, declared, overrides, hp_after) -> None:
    assert hold_back(target_hp, damage, declared, **overrides)["hp_after"] == hp_after


def test_a_formula_giving_a_fraction_is_a_coded_error() -> None:
    with pytest.raises(MprError) as caught:
        hold_back(5, 3, True, declared_damage="damage / 2")
    assert caught.value.code == "MPR777"


@pytest.mark.parametrize("steps,step,legal", [
    (["damage_calculation"], "damage_calculation", True),
    (["damage_calculation"], "attack_check", False),
    (["attack_check", "damage_calculation"], "attack_check", True),
    (["attack_check", "damage_calculation"], "damage_calculation", True),
    ("damage_calculation", "damage_calculation", True),
])
def test_declaration_timings_are_a_list(steps, step, legal) -> None:
    result = cover(battle(LINE, "rear", "rear", step=step), declared_before=steps)
    assert result["legal"] is legal


@pytest.mark.parametrize("target_hp,damage,declared,code,path", [
    (5, -1, True, "MPR725", "damage"),
    (5, -1, False, "MPR725", "damage"),
    (5, "3", True, "MPR724", "damage"),
    (5, 2.5, True, "MPR724", "damage"),
    ("5", 3, True, "MPR724", "target_hp"),
    (5, 3, "yes", "MPR724", "hold_back"),
])
def test_bad_damage_is_a_coded_error(target_hp, damage, declared, code, path) -> None:
    with pytest.raises(MprError) as caught:
        hold_back(target_hp, damage, declared)
    assert (caught.value.code, caught.value.loc.path) == (code, path)


@pytest.mark.parametrize("rule_id,declared_before,codes", [
    ("combat.cover", "damage_calculation", []),
    ("combat.hold_back", "attack_check", []),
    ("combat.cover", "damage_roll", ["MPR729"]),
    ("combat.cover", ["attack_check", "damage_roll"], ["MPR729"]),
    ("combat.cover", ["attack_check", "damage_calculation"], []),
])
def test_semantic_check(rule_id, declared_before, codes) -> None:
    doc = DOCS[rule_id]
    rule = Rule(id=rule_id, kind="CombatAction", doc=doc,
                params={**doc["params"], "declared_before": declared_before})
    assert [d.code for d in combat_action.check(rule, None, "en")] == codes


def test_through_the_engine() -> None:
    ruleset = load_ruleset()
    result = engine.run(ruleset, "combat.cover", {**battle(LINE, "middle", "rear"), "user": "knight"})
    assert result.value["legal"] is True
    assert result.value["user_after"] == {"acted": True, "stays_acted_next_round": False}
    held = engine.run(ruleset, "combat.hold_back", {"target_hp": 3, "damage": 10, "hold_back": True})
    assert held.value == {"hp_after": 0, "action_cost": 0}
    default = engine.run(ruleset, "combat.hold_back", {"target_hp": 3, "damage": 10})
    assert default.value == {"hp_after": -7, "action_cost": 0}


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.data())
def test_distance_on_a_line_is_the_gap_in_the_list(length, data) -> None:
    areas = [f"a{i}" for i in range(length)]
    i = data.draw(st.integers(0, length - 1))
    j = data.draw(st.integers(0, length - 1))
    assert area_distance(areas, None, areas[i], areas[j]) == abs(i - j)
    # The same line written as explicit adjacency gives the same distance.
    pairs = [[a, b] for a, b in zip(areas, areas[1:])]
    assert area_distance(areas, pairs, areas[i], areas[j]) == abs(i - j)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-50, max_value=50), st.integers(min_value=0, max_value=100),
       st.booleans())
def test_holding_back_never_pushes_hp_below_the_floor(target_hp, damage, declared) -> None:
    hp_after = hold_back(target_hp, damage, declared)["hp_after"]
    assert hp_after <= target_hp
    if declared:
        assert hp_after >= min(target_hp, 0)
    else:
        assert hp_after == target_hp - damage


def test_a_large_battle_is_quick() -> None:
    areas = [f"a{i}" for i in range(50_000)]
    state = {"areas": areas, "characters": [
        {"id": "knight", "area": areas[0], "hp": 1, "acted": False, "turn_started": False},
        {"id": "mage", "area": areas[-1], "hp": 1, "acted": False, "turn_started": False}],
        "attack": {"attacker": "knight", "target": "mage", "step": "damage_calculation"}}
    result = cover(state, user="knight")
    assert [e["code"] for e in result["errors"]] == ["MPR727"]


def test_a_state_the_rule_does_not_cover_is_traced_as_unresolved() -> None:
    state = {**battle(LINE, "rear", "rear", acted=False, turn_started=True), "user": "knight"}
    result = engine.run(load_ruleset(), "combat.cover", state)
    assert result.value["user_after"] == {"acted": False, "stays_acted_next_round": False}
    assert [s.kind for s in result.trace[0].children][-1] == "unresolved"
    settled = engine.run(load_ruleset(), "combat.cover", {**battle(LINE, "rear", "rear"), "user": "knight"})
    assert "unresolved" not in [s.kind for s in settled.trace[0].children]


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "k", "m"]),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["id", "area", "hp", "acted", "turn_started",
                                                           "attacker", "target", "step"]), inner,
                                         max_size=5),
                       max_leaves=12)


@settings(max_examples=80, deadline=None)
@given(st.fixed_dictionaries({}, optional={"round": JSONISH, "areas": JSONISH, "adjacent": JSONISH,
                                           "characters": JSONISH, "attack": JSONISH}),
       JSONISH)
def test_any_battle_state_gives_a_result_or_a_coded_error(state, user) -> None:
    try:
        result = cover(state, user=user)
    except MprError as error:
        assert error.code.startswith("MPR7")
    else:
        assert set(result) == {"legal", "target_after", "user_after", "errors"}
