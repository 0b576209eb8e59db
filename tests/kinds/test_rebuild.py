"""Rebuild (R17-R20) as data: every constraint at and past its bound, bad input as coded and
located errors, and the ``Procedure`` kind's readable report in both languages.

The parameters, field names and links are read from the bundled ``rebuild.yaml`` and run by the
generic solvers, so the bounds tested are the YAML's."""
from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from interpreter.engine import runner as engine
from interpreter.kinds import procedure
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.documents.resources import bundled_ruleset
from interpreter.checks.loading import load_ruleset
from interpreter.solvers import bounded_split
from interpreter.solvers.bounded_split import Bounds, split
from rules_dsl.errors import MprError
from interpreter.solvers.limits import MAX_PLAN_ENTRIES
from rebuild_support import (DOCS, PARAMS, check_abilities, check_character, check_items,
                                   check_skills, check_spells, setup)

CHECKS = {"abilities": check_abilities, "skills": check_skills, "items": check_items,
          "spells": check_spells}
IMMATURE = {"immature_minimums": {"body": 3, "sense": 3, "intellect": 3, "magic": 0}}
B45 = {"body": 12, "sense": 12, "intellect": 12, "magic": 9}  # 45 points: an excess of 5
B44 = {"body": 12, "sense": 12, "intellect": 12, "magic": 8}
B40 = {"body": 10, "sense": 10, "intellect": 10, "magic": 10}


def abl(after: tuple[int, int, int, int], before: dict = B45, **extra: Any) -> dict:
    return {"before": before, "after": dict(zip(("body", "sense", "intellect", "magic"), after)),
            **extra}


def sk(*ranks: str, prefix: str = "s") -> list[dict]:
    return [{"name": f"{prefix}{i}", "rank": r} for i, r in enumerate(ranks)]


def items(a: int, b: int, c: int, *buys: tuple[int, str], **extra: Any) -> dict:
    money = {"initial": a, "scenarios": b, "spells_spent": c, **extra.pop("money", {})}
    return {"money": money, "purchases": [{"name": f"i{i}", "price": p, "phase": ph}
                                          for i, (p, ph) in enumerate(buys)], **extra}


def spell(name: str, school: str, tier: int, cost: int, paid_from: str | None = None) -> dict:
    out = {"name": name, "school": school, "tier": tier, "cost": cost}
    return {**out, "paid_from": paid_from} if paid_from else out


def spells(learned: list, relearn: list, spell_only: int = 0, ordinary: int = 0) -> dict:
    return {"learned": learned, "relearn": relearn,
            "money": {"spell_only": spell_only, "ordinary": ordinary}}


# (name, part, plan, parameter overrides, {value: expected}, [(constraint, path, {arg: value})])
CASES = [
    # R17: an ability of 20 needs +5 of excess
    ("20 with an excess of 5", "abilities", abl((20, 10, 10, 5)), {},
     {"base": {"body": 15, "sense": 10, "intellect": 10, "magic": 5},
      "extra": {"body": 5, "sense": 0, "intellect": 0, "magic": 0}}, []),
    ("20 with an excess of 4", "abilities", abl((20, 10, 10, 4), B44), {},
     {"base": None, "excess": 4},
     [("excess_too_small", "after", {"needed": 5, "excess": 4, "over": 1, "fields": ["body"]})]),
    ("two 20s with an excess of 10", "abilities",
     abl((20, 20, 5, 5), {"body": 15, "sense": 15, "intellect": 10, "magic": 10}), {},
     {"base": {"body": 15, "sense": 15, "intellect": 5, "magic": 5}}, []),
    ("21 is one past 15 + 5", "abilities", abl((21, 10, 10, 4)), {}, {},
     [("above_maximum", "after.body", {"value": 21, "limit": 20, "over": 1})]),
    ("magic 0 is its minimum", "abilities", abl((15, 15, 10, 0), B40), {},
     {"base": {"body": 15, "sense": 15, "intellect": 10, "magic": 0}, "excess": 0}, []),
    ("body 4 is its minimum", "abilities", abl((4, 15, 11, 10), B40), {}, {}, []),
    ("body 3 without 未熟な能力値", "abilities", abl((3, 15, 12, 10), B40), {}, {},
     [("below_minimum", "after.body", {"value": 3, "minimum": 4, "short": 1})]),
    ("body 3 with 未熟な能力値", "abilities", abl((3, 15, 12, 10), B40, immature=True), IMMATURE,
     {"base": {"body": 3, "sense": 15, "intellect": 12, "magic": 10}}, []),
    ("body 2 with 未熟な能力値 (minimum 3)", "abilities", abl((2, 15, 13, 10), B40, immature=True),
     IMMATURE, {}, [("below_minimum", "after.body", {"minimum": 3, "short": 1})]),
    ("conversion without permission", "abilities", abl((15, 12, 10, 6), to_skills=2), {}, {},
     [("conversion_not_permitted", "to_skills", {"amount": 2}),
      ("total_short", "after", {"total": 43, "available": 45, "short": 2})]),
    ("conversion with permission", "abilities",
     abl((15, 12, 10, 6), to_skills=2, gm_permits_conversion=True), {},
     {"skill_acquisitions": 2, "placed": 3, "money_mj": 0}, []),
    ("all the excess to money", "abilities",
     abl((10, 10, 10, 10), to_money=5, gm_permits_conversion=True), {}, {"money_mj": 5000}, []),
    ("one point more than the excess converted", "abilities",
     abl((10, 10, 10, 10), to_money=6, gm_permits_conversion=True), {}, {},
     [("conversion_over_excess", "to_money", {"converted": 6, "excess": 5, "over": 1})]),
    ("ability points below 40", "abilities",
     abl((10, 10, 10, 9), {"body": 10, "sense": 10, "intellect": 10, "magic": 9}), {}, {},
     [("points_short", "before", {"points": 39, "short": 1})]),
    ("one point too many allocated", "abilities", abl((13, 12, 12, 9)), {}, {},
     [("total_over", "after", {"total": 46, "available": 45, "over": 1})]),
    ("an excess of 25 cannot be placed", "abilities",
     abl((20, 20, 20, 5), {"body": 20, "sense": 20, "intellect": 20, "magic": 5}), {},
     {"proposal": None}, [("excess_unplaceable", "after", {"excess": 25, "capacity": 20, "over": 5})]),
    ("skill acquisitions converted into ability points", "abilities",
     abl((12, 12, 12, 9), B44, from_skills=1), {}, {"points": 45, "excess": 5}, []),
    # R18: acquisitions
    ("5 acquisitions relearned", "skills", {"before": sk("master", "expert"),
                                            "after": sk("novice", "novice", "master")}, {},
     {"acquisitions": 5, "excess": 0, "available": 5, "used": 5}, []),
    ("one acquisition too many", "skills", {"before": sk("master", "expert"),
                                            "after": sk("master", "expert", "novice")}, {},
     {"used": 6}, [("count_over", "after", {"used": 6, "available": 5, "over": 1})]),
    ("one acquisition too few", "skills", {"before": sk("master", "expert"),
                                           "after": sk("master", "novice")}, {}, {},
     [("count_short", "after", {"short": 1})]),
    ("excess to ability points without permission", "skills",
     {"before": sk("master", "master", "novice"), "after": sk("master", "expert"), "to_abilities": 2},
     {}, {"excess": 2},
     [("conversion_not_permitted", "to_abilities", {"amount": 2}),
      ("count_short", "after", {"available": 7, "short": 2})]),
    ("excess to ability points with permission", "skills",
     {"before": sk("master", "master", "novice"), "after": sk("master", "expert"), "to_abilities": 2,
      "gm_permits_conversion": True}, {}, {"ability_points": 2, "available": 5}, []),
    ("one acquisition more than the excess converted", "skills",
     {"before": sk("master", "master", "novice"), "after": sk("master", "expert"), "to_money": 3,
      "gm_permits_conversion": True}, {},
     {"money_mj": 2000}, [("conversion_over_excess", "to_money", {"excess": 2, "over": 1})]),
    ("acquisitions from ability points", "skills",
     {"before": sk("master", "expert"), "after": sk("master", "master", "novice"),
      "from_abilities": 2}, {}, {"available": 7}, []),
    # R19: items
    ("creation money and the rest exactly spent", "items",
     items(3000, 5000, 1000, (3000, "creation"), (4000, "after")), {},
     {"refund": 7000, "creation_budget": 3000, "remaining": 0}, []),
    ("creation purchases 1 Mj over A", "items", items(3000, 5000, 1000, (3001, "creation")), {}, {},
     [("first_phase_over_budget", "purchases", {"spent": 3001, "budget": 3000, "over": 1})]),
    ("purchases 1 Mj over the refund", "items",
     items(3000, 5000, 1000, (3000, "creation"), (4001, "after")), {}, {"remaining": -1},
     [("total_over_budget", "purchases", {"budget": 7000, "over": 1})]),
    ("a refund smaller than A caps the creation budget", "items",
     items(5000, 0, 2000, (3000, "creation")), {}, {"creation_budget": 3000, "refund": 3000}, []),
    ("single phase lifts the creation cap", "items",
     items(3000, 5000, 1000, (7000, "creation"), gm_allows_single_phase=True), {},
     {"creation_budget": 7000, "remaining": 0}, []),
    ("two phases keep it", "items", items(3000, 5000, 1000, (7000, "creation")), {}, {},
     [("first_phase_over_budget", "purchases", {"over": 4000})]),
    ("converted money joins the later budget", "items",
     items(3000, 0, 0, (3000, "creation"), (2000, "after"), money={"converted": 2000}), {},
     {"budget": 5000, "remaining": 0}, []),
    ("spells cost more than all the money", "items", items(1000, 500, 2000), {}, {"refund": -500},
     [("debit_over_credit", "money.spells_spent", {"over": 500})]),
    # R20: spells
    ("a free spell is refunded as ordinary money", "spells",
     spells([spell("a", "炎", 1, 1000, "free"), spell("b", "炎", 2, 2000, "ordinary")], []), {},
     {"refund": {"spell_only": 0, "ordinary": 3000}, "left": {"spell_only": 0, "ordinary": 3000}}, []),
    ("the free-spell purse is a parameter", "spells",
     spells([spell("a", "炎", 1, 1000, "free")], []), {"free_refund_purse": "spell_only"},
     {"refund": {"spell_only": 1000, "ordinary": 0}}, []),
    ("spell-only money is spent first", "spells",
     spells([spell("a", "炎", 1, 3000, "spell_only")],
            [spell("x", "水", 1, 1000), spell("y", "水", 2, 3000)], ordinary=2000), {},
     {"spent": {"spell_only": 3000, "ordinary": 1000}, "left": {"spell_only": 0, "ordinary": 1000}}, []),
    ("a tier gap", "spells",
     spells([], [spell("x", "炎", 1, 0), spell("y", "炎", 3, 0)]), {}, {},
     [("level_gap", "relearn[1].tier", {"level": 3, "missing": 2, "gap": 1})]),
    ("tier 2 of one school does not follow tier 1 of another", "spells",
     spells([], [spell("x", "炎", 1, 0), spell("y", "水", 2, 0)]), {}, {},
     [("level_gap", "relearn[1].tier", {"group": "水", "missing": 1, "lowest_missing": 1})]),
    ("tiers relearned in any list order", "spells",
     spells([], [spell("y", "炎", 2, 0), spell("x", "炎", 1, 0)]), {}, {}, []),
    ("spells 1 Mj over the money", "spells",
     spells([spell("a", "炎", 1, 1000, "ordinary")], [spell("x", "炎", 1, 1001)]), {}, {},
     [("over_budget", "relearn", {"cost": 1001, "available": 1000, "over": 1})]),
]


@pytest.mark.parametrize("name,part,plan,overrides,values,violations", CASES,
                         ids=[c[0] for c in CASES])
def test_constraint_at_and_past_its_bound(name: str, part: str, plan: dict, overrides: dict,
                                          values: dict, violations: list) -> None:
    outcome = CHECKS[part](plan, overrides)
    assert outcome.legal == (not violations)
    for key, value in values.items():
        assert outcome.values[key] == value, key
    assert [(v.constraint, v.path) for v in outcome.violations] == [(c, p) for c, p, _ in violations]
    for violation, (_, _, args) in zip(outcome.violations, violations):
        assert {k: violation.args[k] for k in args} == args


PROPOSALS = [  # (after, before, distance of the nearest legal plan, the report's moves)
    ((21, 10, 10, 4), B45, 2, [("move", {"amount": 1, "source": "body", "target": "magic"})]),
    ((20, 10, 10, 4), B44, 2, [("move", {"amount": 1, "source": "body", "target": "magic"})]),
    ((3, 15, 12, 10), B40, 2, [("move", {"amount": 1, "source": "sense", "target": "body"})]),
    ((13, 12, 12, 9), B45, 1, [("remove", {"amount": 1, "field": "body"})]),
    ((20, 20, 5, 0), B45, 10, [("move", {"amount": 5, "source": "body", "target": "magic"})]),
]


@pytest.mark.parametrize("after,before,distance,moves", PROPOSALS)
def test_nearest_legal_plan(after: tuple, before: dict, distance: int, moves: list) -> None:
    outcome = check_abilities(abl(after, before))
    proposal = outcome.values["proposal"]
    assert not outcome.legal and proposal is not None
    assert check_abilities({"before": before, "after": proposal}).legal
    plan = dict(zip(("body", "sense", "intellect", "magic"), after))
    assert sum(abs(proposal[a] - plan[a]) for a in plan) == distance
    lines = [(line.message, dict(line.args)) for line in outcome.report
             if line.message in ("move", "add", "remove")]
    assert lines == moves


def test_split_returns_none_for_the_wrong_total() -> None:
    rules = Bounds.from_setup(setup("rebuild.abilities"))
    assert split({"body": 10, "sense": 10, "intellect": 10, "magic": 10}, 1, rules) is None


# (name, part, plan, parameter overrides, code, path)
BAD = [
    ("unknown ability", "abilities", abl((10, 10, 10, 15)) | {"after": {**B45, "strength": 1}}, {},
     "MPR800", "after.strength"),
    ("before missing", "abilities", {"after": B45}, {}, "MPR801", "before"),
    ("missing ability", "abilities", {"before": B45, "after": {"body": 45}}, {}, "MPR801", "after.sense"),
    ("negative ability", "abilities", abl((-1, 20, 16, 10)), {}, "MPR802", "after.body"),
    ("negative conversion", "abilities", abl((12, 12, 12, 9), to_money=-1), {}, "MPR802", "to_money"),
    ("fractional ability", "abilities", abl((12.5, 12, 12, 9)), {}, "MPR803", "after.body"),
    ("permission not a flag", "abilities", abl((12, 12, 12, 9), gm_permits_conversion="yes"), {},
     "MPR807", "gm_permits_conversion"),
    ("after not a mapping", "abilities", {"before": B45, "after": [1, 2]}, {}, "MPR806", "after"),
    ("immature minimums not set", "abilities", abl((3, 15, 12, 15), immature=True), {},
     "MPR808", "params.immature_minimums"),
    ("a minimum above the maximum", "abilities", abl((12, 12, 12, 9), immature=True),
     {"immature_minimums": {"body": 16, "sense": 3, "intellect": 3, "magic": 0}}, "MPR823",
     "params.immature_minimums.body"),
    ("unknown rank", "skills", {"before": sk("grandmaster"), "after": []}, {}, "MPR800", "before[0].rank"),
    ("skill without a name", "skills", {"before": [{"rank": "novice"}], "after": []}, {},
     "MPR801", "before[0].name"),
    ("duplicate skill", "skills", {"before": [], "after": sk("novice", "expert", prefix="x")
                                   + [{"name": "x0", "rank": "novice"}]}, {}, "MPR804", "after[2].name"),
    ("skills not a list", "skills", {"before": {"a": 1}, "after": []}, {}, "MPR810", "before"),
    ("spell without a school", "spells",
     spells([{"name": "a", "tier": 1, "cost": 1, "paid_from": "free"}], []), {}, "MPR801",
     "learned[0].school"),
    ("spell without a tier", "spells", spells([], [{"name": "a", "school": "炎", "cost": 1}]), {},
     "MPR801", "relearn[0].tier"),
    ("tier 0", "spells", spells([], [spell("a", "炎", 0, 1)]), {}, "MPR811", "relearn[0].tier"),
    ("unknown purse", "spells", spells([spell("a", "炎", 1, 1, "loan")], []), {}, "MPR800",
     "learned[0].paid_from"),
    ("duplicate spell", "spells", spells([], [spell("a", "炎", 1, 1), spell("a", "水", 1, 1)]), {},
     "MPR804", "relearn[1].name"),
    ("negative spell cost", "spells", spells([], [spell("a", "炎", 1, -5)]), {}, "MPR802",
     "relearn[0].cost"),
    ("negative price", "items", items(1, 1, 0, (-3, "after")), {}, "MPR802", "purchases[0].price"),
    ("unknown phase", "items", items(1, 1, 0, (1, "later")), {}, "MPR800", "purchases[0].phase"),
    ("money without A", "items", {"money": {"scenarios": 1, "spells_spent": 0}}, {}, "MPR801",
     "money.initial"),
    ("a misspelt field of a skill", "skills",
     {"before": [{"name": "a", "rank": "novice", "level": 3}], "after": []}, {}, "MPR800",
     "before[0].level"),
    ("a quantity on a purchase", "items",
     {"money": {"initial": 5, "scenarios": 0, "spells_spent": 0},
      "purchases": [{"name": "a", "price": 1, "phase": "after", "qty": 2}]}, {}, "MPR800",
     "purchases[0].qty"),
    ("a misspelt field of money", "items", items(1, 1, 0, money={"scenario": 5}), {}, "MPR800",
     "money.scenario"),
    ("a misspelt field of a spell", "spells",
     spells([{"name": "a", "school": "炎", "tier": 1, "cost": 1, "paid_from": "free", "teir": 2}],
            []), {}, "MPR800", "learned[0].teir"),
    ("a relearned spell names no purse", "spells", spells([], [spell("a", "炎", 1, 1, "free")]), {},
     "MPR800", "relearn[0].paid_from"),
]


@pytest.mark.parametrize("name,part,plan,overrides,code,path", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_coded_located_error(name: str, part: str, plan: dict, overrides: dict,
                                            code: str, path: str) -> None:
    with pytest.raises(MprError) as caught:
        CHECKS[part](plan, overrides)
    assert caught.value.code == code
    assert caught.value.loc.path == path
    assert caught.value.message("ja") != caught.value.message("en")


# ---- the whole character -------------------------------------------------------------------

def character(**changes: Any) -> dict:
    plan = {
        "gm_permits_conversion": True,
        "abilities": abl((15, 12, 10, 5), to_skills=2, to_money=1),
        "skills": {"before": sk("master", "expert"), "after": sk("master", "expert", "expert")},
        "items": items(3000, 2000, 1000, (3000, "creation"), (3000, "after")),
        "spells": spells([spell("a", "炎", 1, 1000, "ordinary")], []),
    }
    plan["items"]["money"].pop("spells_spent")
    for key, value in changes.items():
        plan[key] = value
    return plan


CHARACTER = [  # (name, changes, [(code-bearing constraint, path)])
    ("the links balance", {}, []),
    ("without permission every conversion fails",
     {"gm_permits_conversion": False},
     [("conversion_not_permitted", "abilities.to_skills"),
      ("conversion_not_permitted", "abilities.to_money"),
      ("total_short", "abilities.after"),
      ("count_over", "skills.after"), ("total_over_budget", "items.purchases")]),
    ("C stated wrongly",
     {"items": items(3000, 2000, 500, (3000, "creation"), (3000, "after"))},
     [("spells_spent_mismatch", "items.money.spells_spent")]),
    ("skill acquisitions back to ability points",
     {"abilities": abl((15, 12, 10, 6), to_skills=2, to_money=1),
      "skills": {"before": sk("master", "expert"), "after": sk("master", "expert", "novice"),
                 "to_abilities": 0}}, [("total_over", "abilities.after"),
                                       ("count_short", "skills.after")]),
]


@pytest.mark.parametrize("name,changes,violations", CHARACTER, ids=[c[0] for c in CHARACTER])
def test_character_plan(name: str, changes: dict, violations: list) -> None:
    outcome = check_character(character(**changes))
    assert [(v.constraint, v.path) for v in outcome.violations] == violations
    assert outcome.legal == (not violations)


def test_character_links_feed_both_ways() -> None:
    plan = character(
        abilities=abl((15, 12, 10, 7), to_skills=2),
        skills={"before": sk("master", "master"), "after": sk("master", "expert", "expert"),
                "to_abilities": 1},
        items={"money": {"initial": 3000, "scenarios": 2000},
               "purchases": [{"name": "i", "price": 5000, "phase": "after"}]})
    outcome = check_character(plan)
    assert outcome.legal, outcome.violations
    assert outcome.values["abilities"]["points"] == 46
    assert outcome.values["skills"]["available"] == 7
    assert outcome.values["items"]["budget"] == 4000 + 1000  # refund 4000 + spells' ordinary 1000
    assert outcome.values["items"]["remaining"] == 0


@pytest.mark.parametrize("changes,code,path", [
    ({"abilities": abl((15, 12, 10, 5), from_skills=1)}, "MPR812", "abilities.from_skills"),
    ({"abilities": abl((15, 12, -1, 5))}, "MPR802", "abilities.after.intellect"),
    ({"skills": {"before": sk("novice"), "after": sk("expert"), "from_abilities": 1}}, "MPR812",
     "skills.from_abilities"),
    ({"spells": spells([{"name": "a", "tier": 1, "cost": 1, "paid_from": "free"}], [])}, "MPR801",
     "spells.learned[0].school"),
    ({"items": items(1, 1, 0, money={"converted": 5})}, "MPR812", "items.money.converted"),
    ({"spells": spells([], [], spell_only=500, ordinary=3000)}, "MPR824", "spells.money.ordinary"),
])
def test_character_bad_input_names_the_part(changes: dict, code: str, path: str) -> None:
    with pytest.raises(MprError) as caught:
        check_character(character(**changes))
    assert (caught.value.code, caught.value.loc.path) == (code, path)


# ---- through the engine: the kind, its texts, its trace --------------------------------------

@pytest.fixture(scope="module")
def ruleset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rebuild")
    for name in ("ruleset.yaml", "rebuild.yaml"):
        shutil.copy(bundled_ruleset() / name, root / name)
    return root


def run(root: Path, rule: str, data: dict, lang: str = "en", **overrides: dict) -> Any:
    ruleset = load_ruleset(root, param_overrides=overrides or None, lang=lang)
    return engine.run(ruleset, rule, data, lang=lang)


def report(result: Any) -> list[str]:
    step = next(s for s in result.trace[0].children if s.kind == "report")
    return [step.label] + [c.label for c in step.children]


@pytest.mark.parametrize("lang,texts", [
    ("en", ["the rebuild is not legal (2 problem(s))",
            "MPR836 after.body: body 21 is 1 above 20",
            "a nearby legal plan (0 converted): body 20, sense 10, intellect 10, magic 5",
            "move 1 point(s) from body to magic"]),
    ("ja", ["このリビルドは無効です（問題2件）",
            "MPR836 after.body: 【身体】の21は上限20（最大値15＋超過分から最大5点）を1点上回っています",
            "近い有効な割り振りの例（変換0点）：【身体】20、【感覚】10、【知性】10、【魔力】5",
            "【身体】から【魔力】へ1点移す"]),
])
def test_report_is_readable_in_both_languages(ruleset_dir: Path, lang: str, texts: list) -> None:
    result = run(ruleset_dir, "rebuild.abilities", abl((21, 10, 10, 3)), lang)
    assert result.value["legal"] is False
    assert [e["code"] for e in result.value["errors"]] == ["MPR834", "MPR836"]
    lines = report(result)
    for text in texts:
        assert any(line.startswith(text) for line in lines), (text, lines)


def test_legal_split_is_reported(ruleset_dir: Path) -> None:
    result = run(ruleset_dir, "rebuild.abilities", abl((20, 10, 10, 5)))
    assert result.value["errors"] == [] and result.value["legal"] is True
    assert report(result) == [
        "the rebuild is legal",
        "ability points 45: base 40 + excess 5 (0 converted, 5 to place)",
        "base allocation (40): body 15, sense 10, intellect 10, magic 5",
        "excess allocation (5, at most 5 each): body 5"]


def test_immature_minimums_from_a_variant(ruleset_dir: Path) -> None:
    plan = abl((3, 15, 12, 10), B40, immature=True)
    with pytest.raises(MprError) as caught:
        run(ruleset_dir, "rebuild.abilities", plan)
    assert caught.value.code == "MPR808"
    assert caught.value.loc.file and caught.value.loc.line  # located at the parameter in the YAML
    result = run(ruleset_dir, "rebuild.abilities", plan, **{"rebuild.abilities": IMMATURE})
    assert result.value["legal"] is True


def test_character_errors_use_each_part_code(ruleset_dir: Path) -> None:
    result = run(ruleset_dir, "rebuild.character", character(gm_permits_conversion=False), "ja")
    assert [(e["code"], e["path"]) for e in result.value["errors"]] == [
        ("MPR831", "abilities.to_skills"), ("MPR831", "abilities.to_money"),
        ("MPR834", "abilities.after"), ("MPR842", "skills.after"), ("MPR852", "items.purchases")]
    assert "ＧＭの許可" in result.value["errors"][0]["message"]
    assert result.value["abilities"]["legal"] is False and result.value["spells"]["legal"] is True


# ---- a house rule built on the same kind: derived values and checked constraints ------------

def house_document() -> dict:
    doc = copy.deepcopy(DOCS["rebuild.abilities"])
    example = {"name": "immature", "input": abl((12, 12, 12, 9), immature=True),
               "expect_error": "MPR808"}
    doc.update(id="house.abilities", examples=[example])
    doc["params"]["max_drop"] = 3
    doc["derive"] = [{"name": "body_drop", "expr": "before.body - after.body"}]
    doc["constraints"].append({
        "id": "body_drop", "code": "MPR880", "check": "body_drop <= params.max_drop",
        "args": {"drop": "body_drop", "over": "body_drop - params.max_drop"}, "path": "after.body",
        "message": {"ja": "【身体】が{drop}点下がります（{over}点超過）",
                    "en": "body drops by {drop}, {over} more than the house rule allows"}})
    return doc


@pytest.fixture(scope="module")
def house_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("house")
    shutil.copy(bundled_ruleset() / "ruleset.yaml", root / "ruleset.yaml")
    (root / "house.yaml").write_text(yaml.safe_dump_all([house_document(), NO_SOLVER],
                                                        allow_unicode=True), encoding="utf-8")
    return root


NO_SOLVER = {  # a procedure with no solver: only derived values and checked constraints
    "id": "house.allowance", "kind": "Procedure", "source": "R19",
    "title": {"ja": "小遣い", "en": "Allowance"},
    "inputs": {"type": "object", "properties": {"weeks": {"type": "integer"}}, "required": ["weeks"]},
    "params": {"per_week": 500, "cap": 3000},
    "derive": [{"name": "total", "expr": "weeks * params.per_week"}],
    "constraints": [{"id": "over_cap", "code": "MPR881", "check": "total <= params.cap",
                     "args": {"over": "total - params.cap"}, "path": "weeks",
                     "message": {"ja": "{over}Mj超過", "en": "{over} Mj over the cap"}}],
    "messages": {"legal": {"en": "ok"}, "illegal": {"en": "not ok"}},
    "examples": [{"name": "six weeks", "input": {"weeks": 6},
                  "expect": {"legal": True, "total": 3000, "errors": []}}]}


@pytest.mark.parametrize("weeks,value", [
    (6, {"legal": True, "total": 3000, "errors": []}),
    (7, {"legal": False, "total": 3500,
         "errors": [{"code": "MPR881", "message": "500 Mj over the cap", "path": "weeks"}]}),
])
def test_procedure_without_solver(house_dir: Path, weeks: int, value: dict) -> None:
    result = run(house_dir, "house.allowance", {"weeks": weeks})
    assert result.value == value
    assert report(result)[0] == ("ok" if value["legal"] else "not ok")


@pytest.mark.parametrize("after,legal,errors", [
    ((9, 14, 13, 9), True, []),
    ((8, 15, 13, 9), False, [("MPR880", "after.body", "body drops by 4, 1 more than the house rule allows")]),
])
def test_house_rule_constraint(house_dir: Path, after: tuple, legal: bool, errors: list) -> None:
    result = run(house_dir, "house.abilities", abl(after))
    assert result.value["legal"] is legal
    assert result.value["body_drop"] == 12 - after[0]
    assert [(e["code"], e["path"], e["message"]) for e in result.value["errors"]] == errors


def _findings(doc: dict, others: tuple[dict, ...] = ()) -> list[tuple[str, str]]:
    rules = {d["id"]: Rule(d["id"], d["kind"], d, dict(d.get("params") or {}))
             for d in (*others, doc)}
    ruleset = Ruleset("t", ".", {}, rules)
    return [(f.code, f.severity) for f in procedure.check(rules[doc["id"]], ruleset, "en")]


def _edited(rule_id: str, **changes: Any) -> dict:
    doc = copy.deepcopy(DOCS[rule_id])
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def test_bundled_documents_pass_their_checks() -> None:
    docs = tuple(DOCS.values())
    for doc in docs:
        assert _findings(doc, tuple(d for d in docs if d is not doc)) == [], doc["id"]


@pytest.mark.parametrize("doc,code", [
    (_edited("rebuild.skills", solver="skill_split"), "MPR813"),
    (_edited("rebuild.skills", constraints=DOCS["rebuild.skills"]["constraints"][1:]), "MPR814"),
    (_edited("rebuild.skills", messages={"legal": {"en": "ok"}, "illegal": {"en": "no"}}), "MPR815"),
    (_edited("rebuild.skills", constraints=[dict(c, code="MPR801")
                                            for c in DOCS["rebuild.skills"]["constraints"]]), "MPR816"),
    (_edited("rebuild.skills", constraints=[dict(c, code="MPR840")
                                            for c in DOCS["rebuild.skills"]["constraints"]]), "MPR817"),
    (_edited("rebuild.skills", constraints=[*DOCS["rebuild.skills"]["constraints"],
                                            {"id": "unused", "code": "MPR849", "message": {"en": "x"}}]),
     "MPR818"),
    (_edited("rebuild.skills", messages={**DOCS["rebuild.skills"]["messages"],
                                         "illegal": {"en": "{nope}"}}), "MPR819"),
    (_edited("rebuild.character", parts={"abilities": "rebuild.skills"}), "MPR820"),
    (_edited("rebuild.skills", derive=[{"name": "used", "expr": "1"}]), "MPR821"),
    (_edited("rebuild.skills", derive=[{"name": "twice", "expr": "acquisitions + nothing"}]), "MPR351"),
    (_edited("rebuild.character", parts={**DOCS["rebuild.character"]["parts"],
                                         "spells": "rebuild.character"}), "MPR820"),
    (_edited("rebuild.character", fields={**DOCS["rebuild.character"]["fields"],
                                          "steps": [{"part": "feats"}]}), "MPR820"),
    (_edited("rebuild.character", constraints=[]), "MPR814"),  # a link's mismatch needs its code
    (_edited("rebuild.skills", params={**PARAMS["skills"], "base": -1}), "MPR307"),
    (_edited("rebuild.items", params={"phases": "creation"}), "MPR300"),
])
def test_document_checks(doc: dict, code: str) -> None:
    others = tuple(d for i, d in DOCS.items() if i != doc["id"])
    assert code in [c for c, _ in _findings(doc, others)]


# ---- limits at and past their bounds ---------------------------------------------------------

@pytest.mark.parametrize("count,code", [(MAX_PLAN_ENTRIES, None), (MAX_PLAN_ENTRIES + 1, "MPR809")])
def test_entries_limit(count: int, code: str | None) -> None:
    plan = {"money": {"initial": 0, "scenarios": 0, "spells_spent": 0},
            "purchases": [{"name": "x", "price": 0, "phase": "after"}] * count}
    if code is None:
        assert check_items(plan).legal
    else:
        with pytest.raises(MprError) as caught:
            check_items(plan)
        assert (caught.value.code, caught.value.loc.path) == (code, "purchases")


@pytest.mark.parametrize("limit,found", [(17 ** 3, True), (17 ** 3 - 1, False)])  # body, sense, intellect: 4..20
def test_search_limit(monkeypatch: pytest.MonkeyPatch, limit: int, found: bool) -> None:
    monkeypatch.setattr(bounded_split, "MAX_SPLIT_CANDIDATES", limit)
    outcome = check_abilities(abl((21, 10, 10, 4)))
    assert (outcome.values["proposal"] is not None) == found
    assert not outcome.legal and "no_proposal" not in [line.message for line in outcome.report]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_bundled_examples_pass(ruleset_dir: Path, lang: str) -> None:
    from interpreter.checks.examples import run_examples

    outcomes = run_examples(load_ruleset(ruleset_dir, lang=lang), lang)
    assert len(outcomes) == sum(len(d["examples"]) for d in DOCS.values())
    assert [o.name for o in outcomes if not o.passed] == []


@pytest.mark.parametrize("plan,line", [
    (abl((20, 10, 10, 5), to_skills=2, gm_permits_conversion=True),
     ("convert_less", {"amount": 2, "converted": 0})),
    (abl((19, 10, 10, 5), to_skills=2, gm_permits_conversion=True),
     ("convert_less", {"amount": 1, "converted": 1})),
    (abl((20, 10, 10, 4), to_skills=2, gm_permits_conversion=True), None),  # body needs 5
    (abl((20, 10, 10, 3), to_skills=2, gm_permits_conversion=True), None),
    (abl((20, 10, 10, 5), to_skills=2), None),  # not permitted: nothing to convert less of
])
def test_convert_less(plan: dict, line: tuple | None) -> None:
    outcome = check_abilities(plan)
    found = [(r.message, dict(r.args)) for r in outcome.report if r.message == "convert_less"]
    assert found == ([line] if line else [])


# ---- the solvers' parameters are typed by the kind schema --------------------------------------

def test_a_wrong_parameter_in_a_variant_is_a_located_finding(tmp_path: Path) -> None:
    """The types of ``$defs/params/<solver>`` hold for the effective parameters: a variant's wrong
    value is a finding at its own line, and the ruleset is not loaded to run."""
    from interpreter.checks.validation import validate_paths

    shutil.copytree(bundled_ruleset(), tmp_path / "magipunk")
    variant = tmp_path / "house"
    variant.mkdir()
    (variant / "ruleset.yaml").write_text(
        "id: house\nversion: 0.1.0\ntitle: {ja: 家, en: House}\nextends: ../magipunk\n"
        "overrides:\n  rebuild.abilities:\n    params:\n      extra_max: -1\n"
        "  rebuild.items:\n    params:\n      phases: [creation, creation]\n", encoding="utf-8")
    found = [(Path(d.file).name, d.line, d.path) for d in validate_paths([str(variant)])
             if d.severity == "error"]
    assert ("ruleset.yaml", 8, "params.extra_max") in found
    assert ("ruleset.yaml", 11, "params.phases.1") in found
    with pytest.raises(MprError) as caught:
        run(variant, "rebuild.abilities", abl((20, 10, 10, 5)))
    assert caught.value.code == "MPR406" and "ruleset.yaml:8:18 (params.extra_max)" in str(caught.value)


@pytest.mark.parametrize("rule,name,value", [
    ("rebuild.abilities", "maximum", "15"), ("rebuild.skills", "weights", {"novice": 1.5}),
    ("rebuild.spells", "spend_order", []), ("rebuild.spells", "first_level", None)])
def test_a_wrong_parameter_from_the_caller_is_refused(ruleset_dir: Path, rule: str, name: str,
                                                      value: Any) -> None:
    plan = {"rebuild.abilities": abl((20, 10, 10, 5)), "rebuild.skills": {"before": [], "after": []},
            "rebuild.spells": spells([], [])}[rule]
    with pytest.raises(MprError) as caught:
        run(ruleset_dir, rule, plan, **{rule: {name: value}})
    assert caught.value.code == "MPR406" and f"caller (params.{name}" in str(caught.value)


@pytest.mark.parametrize("old,new,line_of", [
    ("  gained: from_skills\n", "", "fields:\n  permission: gm_permits_conversion"),  # required
    ("  level: rank\n", "  level: rank\n  grade: 3\n", "  grade: 3"),  # unknown field
    ("solver: budget\nfields:\n", "solver: budget\nfieldz:\n", "fieldz:"),  # fields required
])
def test_the_fields_of_each_solver_are_checked_by_the_schema(tmp_path: Path, old: str, new: str,
                                                               line_of: str) -> None:
    from interpreter.checks.validation import validate_paths

    root = tmp_path / "magipunk"
    shutil.copytree(bundled_ruleset(), root)
    text = (root / "rebuild.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    text = text.replace(old, new)
    (root / "rebuild.yaml").write_text(text, encoding="utf-8")
    line = text[:text.index(line_of)].count("\n") + 1
    found = [(Path(d.file).name, d.line) for d in validate_paths([str(root)]) if d.severity == "error"]
    assert ("rebuild.yaml", line) in found or ("rebuild.yaml", line + 1) in found, found
