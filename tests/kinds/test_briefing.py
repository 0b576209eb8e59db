"""Briefing packages (R5) and rest packages (R4): the tiered Package kind, as data-driven cases.

The tiers' parameters are read from the bundled documents, so the allowances tested are the YAML's."""
from __future__ import annotations

from pathlib import Path

from functools import cache

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.engine import runner as engine
from interpreter.kinds import package
from interpreter.ruleset.model import Rule
from interpreter.documents.resources import rulesets_dir
from interpreter.checks.loading import load_ruleset as _load_ruleset
from rules_dsl.errors import MprError


@cache
def load_ruleset(path=None):
    """Each ruleset is loaded once per test session (runs do not change it)."""
    return _load_ruleset(path)


def _documents(name: str) -> dict[str, dict]:
    """The rules of a bundled file as loaded (a tier based_on a shared base has its fields)."""
    ruleset = _load_ruleset()
    return {rule.id: {**rule.doc, "params": rule.params} for rule in ruleset.rules.values()
            if rule.file and Path(rule.file).name == name}


BRIEFING = _documents("briefing.yaml")
REST = _documents("rest.yaml")


def verdict(tier: str, plan_input: dict, lang: str = "en", **overrides) -> dict:
    doc = BRIEFING[f"briefing.{tier}"]
    params = {**doc["params"], **overrides}
    filled = engine._fill_defaults(doc["inputs"], plan_input)
    return package.check_plan(filled, params, doc["plan"], f"briefing.{tier}", lang)


def uses(n: int, option: str = "o1") -> list[str]:
    return [option] * n


def test_bundled_tiers_are_the_seed_allowances() -> None:
    assert [BRIEFING[f"briefing.{t}"]["params"]["allowance"] for t in ("instant", "tense", "ample")] \
        == [1, 6, None]
    assert all(doc["params"]["options"] == [] for doc in BRIEFING.values())


# (name, tier, plan input, parameter overrides, legal, per_pc, enemy_allowed, [(code, path)])
PLANS = [
    ("instant: one use", "instant", {"plan": {"a": uses(1)}}, {}, True,
     {"a": (1, 1)}, False, []),
    ("instant: a second use", "instant", {"plan": {"a": uses(2)}}, {}, False,
     {"a": (2, 1)}, False, [("MPR701", "plan.a[1]")]),
    ("instant: nothing planned", "instant", {"plan": {"a": []}}, {}, True,
     {"a": (0, 1)}, False, []),
    ("tense: the 6th use", "tense", {"plan": {"a": uses(6)}}, {}, True,
     {"a": (6, 6)}, False, []),
    ("tense: the 7th use", "tense", {"plan": {"a": uses(7)}}, {}, False,
     {"a": (7, 6)}, False, [("MPR701", "plan.a[6]")]),
    ("tense: six uses mixing options", "tense",
     {"plan": {"a": ["o1", "o2", "o1", "o3", "o2", "o1"]}}, {}, True, {"a": (6, 6)}, False, []),
    ("tense: one PC within, one over", "tense", {"plan": {"a": uses(6), "b": uses(9)}}, {}, False,
     {"a": (6, 6), "b": (9, 6)}, False, [("MPR701", "plan.b[6]")]),
    ("ample: many uses", "ample", {"plan": {"a": uses(500), "b": uses(3)}}, {}, True,
     {"a": (500, None), "b": (3, None)}, False, []),
    ("variant allowance of 4: the 5th use", "tense", {"plan": {"a": uses(5)}}, {"allowance": 4},
     False, {"a": (5, 4)}, False, [("MPR701", "plan.a[4]")]),
    ("allowance 0: no use at all", "tense", {"plan": {"a": uses(1)}}, {"allowance": 0},
     False, {"a": (1, 0)}, False, [("MPR701", "plan.a[0]")]),
    ("PCs listed but absent from the plan count 0", "instant",
     {"pcs": ["a", "b"], "plan": {"b": uses(1)}}, {}, True, {"a": (0, 1), "b": (1, 1)}, False, []),
    # enemy symmetry
    ("symmetry on, aware enemies prepare", "instant",
     {"enemies_aware": True, "plan": {"a": uses(1)}, "enemy_plan": {"boss": uses(1)}}, {}, True,
     {"a": (1, 1)}, True, []),
    ("symmetry on, aware enemies have the same limit", "tense",
     {"enemies_aware": True, "plan": {}, "enemy_plan": {"boss": uses(6), "imp": uses(7)}}, {},
     False, {}, True, [("MPR704", "enemy_plan.imp[6]")]),
    ("symmetry on, unaware enemies may not prepare", "ample",
     {"enemies_aware": False, "plan": {"a": uses(2)}, "enemy_plan": {"boss": uses(1)}}, {}, False,
     {"a": (2, None)}, False, [("MPR703", "enemy_plan.boss")]),
    ("symmetry on, unaware enemies planning nothing", "ample",
     {"enemies_aware": False, "plan": {"a": uses(2)}, "enemy_plan": {"boss": []}}, {}, True,
     {"a": (2, None)}, False, []),
    ("symmetry off, aware enemies may not prepare", "tense",
     {"enemies_aware": True, "plan": {"a": uses(1)}, "enemy_plan": {"boss": uses(1)}},
     {"enemy_symmetry": False}, False, {"a": (1, 6)}, False, [("MPR703", "enemy_plan.boss")]),
    ("symmetry off, no enemy plan", "tense", {"enemies_aware": True, "plan": {"a": uses(1)}},
     {"enemy_symmetry": False}, True, {"a": (1, 6)}, False, []),
    # options
    ("listed options: unknown option", "tense", {"plan": {"a": ["o1", "o9", "o2"]}},
     {"options": ["o1", "o2"]}, False, {"a": (3, 6)}, False, [("MPR702", "plan.a[1]")]),
    ("listed options as objects", "instant", {"plan": {"a": ["scout"]}},
     {"options": [{"id": "scout", "title": {"ja": "偵察", "en": "scout"}}]}, True,
     {"a": (1, 1)}, False, []),
    ("unknown option and over the allowance", "instant", {"plan": {"a": ["o9", "o1"]}},
     {"options": ["o1"]}, False, {"a": (2, 1)}, False,
     [("MPR702", "plan.a[0]"), ("MPR701", "plan.a[1]")]),
    ("aware enemy with an unknown option", "instant",
     {"enemies_aware": True, "plan": {}, "enemy_plan": {"boss": ["o7"]}}, {"options": ["o1"]},
     False, {}, True, [("MPR702", "enemy_plan.boss[0]")]),
    ("no list: option names are not checked", "instant", {"plan": {"a": ["anything"]}}, {}, True,
     {"a": (1, 1)}, False, []),
    # how uses count, and an allowance written as an expression
    ("per option: each option once", "instant", {"plan": {"a": ["o1", "o2"]}},
     {"counting": "per_option"}, True, {"a": (2, 1)}, False, []),
    ("per option: one option twice", "instant", {"plan": {"a": ["o1", "o2", "o1"]}},
     {"counting": "per_option"}, False, {"a": (3, 1)}, False, [("MPR701", "plan.a[2]")]),
    ("allowance 2 + the PCs listed", "tense", {"pcs": ["a", "b", "c"], "plan": {"a": uses(5)}},
     {"allowance": "2 + len(pcs)"}, True, {"a": (5, 5), "b": (0, 5), "c": (0, 5)}, False, []),
    ("allowance 2 + the PCs of the plan", "tense", {"plan": {"a": uses(5), "b": uses(1)}},
     {"allowance": "2 + len(pcs)"}, False, {"a": (5, 4), "b": (1, 4)}, False,
     [("MPR701", "plan.a[4]")]),
    ("an expression allowance is shared by aware enemies", "tense",
     {"enemies_aware": True, "pcs": ["a"], "plan": {}, "enemy_plan": {"boss": uses(4)}},
     {"allowance": "2 + len(pcs)"}, False, {"a": (0, 3)}, True, [("MPR704", "enemy_plan.boss[3]")]),
]


@pytest.mark.parametrize("name,tier,plan_input,overrides,legal,per_pc,enemy_allowed,reasons",
                         PLANS, ids=[case[0] for case in PLANS])
def test_plan(name, tier, plan_input, overrides, legal, per_pc, enemy_allowed, reasons) -> None:
    result = verdict(tier, plan_input, **overrides)
    assert result["legal"] is legal
    assert result["per_pc"] == {pc: {"used": u, "allowed": a} for pc, (u, a) in per_pc.items()}
    assert result["enemy_allowed"] is enemy_allowed
    assert [(e["code"], e["path"]) for e in result["errors"]] == reasons
    assert set(result) == {"legal", "per_pc", "enemy_allowed", "errors"}


# (name, tier, plan input, parameter overrides, code, location path)
BAD_PLANS = [
    ("unknown PC", "instant", {"pcs": ["a"], "plan": {"z": uses(1)}}, {}, "MPR705", "plan.z"),
    ("unknown enemy", "instant", {"enemies_aware": True, "enemies": ["boss"], "plan": {},
                                  "enemy_plan": {"imp": uses(1)}}, {}, "MPR705", "enemy_plan.imp"),
    ("negative allowance", "tense", {"plan": {}}, {"allowance": -1}, "MPR706", "briefing.tense.allowance"),
    ("allowance not a number", "tense", {"plan": {}}, {"allowance": [6]}, "MPR706",
     "briefing.tense.allowance"),
    ("allowance an expression giving a fraction", "tense", {"plan": {}}, {"allowance": "7 / 2"},
     "MPR706", "briefing.tense.allowance"),
    ("counting unknown", "tense", {"plan": {}}, {"counting": "each"}, "MPR776",
     "briefing.tense.counting"),
    ("allowance true", "tense", {"plan": {}}, {"allowance": True}, "MPR706", "briefing.tense.allowance"),
    ("plan not a mapping", "tense", {"plan": ["a"]}, {}, "MPR707", "plan"),
    ("uses not a list", "tense", {"plan": {"a": "o1"}}, {}, "MPR707", "plan.a"),
    ("option not a name", "tense", {"plan": {"a": [1]}}, {}, "MPR707", "plan.a"),
    ("enemies_aware not a boolean", "tense", {"enemies_aware": "yes", "plan": {}}, {}, "MPR707",
     "enemies_aware"),
    ("pcs not a list", "tense", {"pcs": "a", "plan": {}}, {}, "MPR707", "pcs"),
]


@pytest.mark.parametrize("name,tier,plan_input,overrides,code,path", BAD_PLANS,
                         ids=[case[0] for case in BAD_PLANS])
def test_bad_plan_is_a_coded_error(name, tier, plan_input, overrides, code, path) -> None:
    with pytest.raises(MprError) as caught:
        verdict(tier, plan_input, **overrides)
    assert caught.value.code == code
    assert caught.value.loc.path == path
    assert caught.value.message("ja") != caught.value.message("en")


def test_reasons_speak_japanese() -> None:
    result = verdict("tense", {"enemies_aware": False, "plan": {"a": uses(7)},
                               "enemy_plan": {"boss": uses(1)}}, lang="ja")
    assert [e["message"] for e in result["errors"]] == [
        "PC a の計画は 7 回ですが、briefing.tense で行えるのはPCごとに 6 回までです",
        "エネミー boss は準備を行えません: エネミーはPCの存在に気づいていません"]


def test_unknown_option_suggests_the_nearest() -> None:
    result = verdict("instant", {"plan": {"a": ["scuot"]}}, options=["scout", "cover"])
    assert result["errors"][0]["message"] == \
        "'scuot' is not an option of briefing.instant (did you mean 'scout'?)"


# Rest packages: (name, rule id, effects override or None, expected value)
RESTS = [
    ("short", "rest.short", None, {"duration_minutes": 10, "effects": []}),
    ("medium", "rest.medium", None, {"duration_minutes": 60, "effects": []}),
    ("long", "rest.long", None, {"duration_minutes": 480, "effects": []}),
    ("long with sleep", "rest.long", [{"effect": "sleep", "hours": 8}],
     {"duration_minutes": 480, "effects": [{"effect": "sleep", "hours": 8}]}),
]


@pytest.mark.parametrize("name,rule_id,effects,expected", RESTS, ids=[c[0] for c in RESTS])
def test_rest_outcome(name, rule_id, effects, expected) -> None:
    params = REST[rule_id]["params"]
    chosen = params["effects"] if effects is None else effects
    assert package.outcome({"duration_minutes": params["duration_minutes"], "effects": chosen},
                           REST[rule_id]["effect_types"], rule_id) == expected


@pytest.mark.parametrize("minutes,effects,code", [
    (10, [{"effect": "feast", "hours": 1}], "MPR708"),
    (10, ["sleep"], "MPR707"),
    (10, [{"effect": "sleep", "hours": -2}], "MPR707"),
    (-5, [], "MPR707"),
    (10, "sleep", "MPR707"),
])
def test_bad_rest_is_a_coded_error(minutes, effects, code) -> None:
    with pytest.raises(MprError) as caught:
        package.outcome({"duration_minutes": minutes, "effects": effects},
                        REST["rest.short"]["effect_types"], "rest.short")
    assert caught.value.code == code


def _rule(rule_id: str, doc: dict, **params) -> Rule:
    merged = {**doc["params"], **params}
    return Rule(id=rule_id, kind="Package", doc=doc, params=merged)


@pytest.mark.parametrize("rule_id,params,findings", [
    ("briefing.tense", {}, [("MPR700", "info")]),
    ("briefing.tense", {"options": ["o1", "o2"]}, []),
    ("briefing.tense", {"options": ["o1", {"id": "o1"}]}, [("MPR710", "error")]),
    ("briefing.instant", {"allowance": -3, "options": ["o1"]}, [("MPR706", "error")]),
    ("rest.medium", {"effects": [{"effect": "sleep", "hours": 1}]}, []),
    ("rest.short", {"effects": [{"effect": "sleep", "hours": 1}]}, [("MPR709", "warning")]),
    ("rest.long", {"effects": [{"effect": "nap"}]}, [("MPR708", "error")]),
    ("rest.long", {"duration_minutes": "8h"}, [("MPR707", "error")]),
    ("briefing.ample", {"options": ["o1", 7]}, [("MPR707", "error")]),
    ("briefing.ample", {"options": "o1"}, [("MPR707", "error")]),
    ("briefing.ample", {"options": ["o1"], "counting": "each"}, [("MPR776", "error")]),
    ("briefing.tense", {"options": ["o1"], "allowance": "2 + len(pcs)"}, []),
])
def test_semantic_check(rule_id, params, findings) -> None:
    doc = (BRIEFING | REST)[rule_id]
    found = list(package.check(_rule(rule_id, doc, **params), None, "en"))
    assert [(d.code, d.severity) for d in found] == findings


# Through the engine, on the bundled ruleset and on the example variant.
def test_run_on_the_bundled_ruleset() -> None:
    ruleset = load_ruleset()
    result = engine.run(ruleset, "briefing.tense", {"plan": {"a": uses(7)}})
    assert result.value["legal"] is False
    assert result.value["per_pc"] == {"a": {"used": 7, "allowed": 6}}
    rest = engine.run(ruleset, "rest.long", {})
    assert rest.value == {"duration_minutes": 480, "effects": []}


def test_run_on_the_variant_with_house_options() -> None:
    variant = load_ruleset(rulesets_dir() / "examples" / "briefing_options")
    tense = variant.rule("briefing.tense")
    assert tense.params["allowance"] == 4 and tense.params["options"]
    options = package.option_ids(tense.params["options"])
    legal = engine.run(variant, "briefing.tense", {"plan": {"a": options[:1] * 4}})
    assert legal.value["legal"] is True
    over = engine.run(variant, "briefing.tense", {"plan": {"a": options[:1] * 5 + ["not_listed"]}})
    assert [e["code"] for e in over.value["errors"]] == ["MPR702", "MPR701"]


def test_example_variant_has_readme() -> None:
    assert (Path(rulesets_dir()) / "examples" / "briefing_options" / "README.md").is_file()


VARIANT = rulesets_dir() / "examples" / "briefing_options"


@pytest.mark.parametrize("plan_file,rule_id,legal,reasons", [
    ("instant_one_each.yaml", "briefing.instant", True, []),
    ("tense_fifth_use.yaml", "briefing.tense", False,
     [("MPR701", "plan.alice[4]"), ("MPR702", "plan.bruno[0]")]),
    ("ample_enemies_waiting.yaml", "briefing.ample", True, []),
])
def test_variant_plans(plan_file, rule_id, legal, reasons) -> None:
    plan_input = yaml.safe_load((VARIANT / "plans" / plan_file).read_text(encoding="utf-8"))
    result = engine.run(load_ruleset(VARIANT), rule_id, plan_input)
    assert result.value["legal"] is legal
    assert [(e["code"], e["path"]) for e in result.value["errors"]] == reasons


def test_variant_long_rest_sleeps() -> None:
    result = engine.run(load_ruleset(VARIANT), "rest.long", {})
    assert result.value == {"duration_minutes": 480, "effects": [{"effect": "sleep", "hours": 8}]}


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 12)),
       st.sampled_from(["instant", "tense", "ample"]))
def test_legal_exactly_when_every_pc_is_within_the_allowance(counts, tier) -> None:
    allowance = BRIEFING[f"briefing.{tier}"]["params"]["allowance"]
    result = verdict(tier, {"plan": {pc: uses(n) for pc, n in counts.items()}})
    within = all(allowance is None or n <= allowance for n in counts.values())
    assert result["legal"] is within
    assert len(result["errors"]) == sum(1 for n in counts.values()
                                        if allowance is not None and n > allowance)


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["a", "o1"]),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["a", "b", "o1"]), inner, max_size=3),
                       max_leaves=10)


@settings(max_examples=80, deadline=None)
@given(st.fixed_dictionaries({}, optional={"enemies_aware": JSONISH, "plan": JSONISH,
                                           "enemy_plan": JSONISH, "pcs": JSONISH,
                                           "enemies": JSONISH}))
def test_any_plan_gives_a_verdict_or_a_coded_error(plan_input) -> None:
    try:
        result = verdict("tense", plan_input, options=["o1"])
    except MprError as error:
        assert error.code.startswith("MPR7")
    else:
        assert set(result) == {"legal", "per_pc", "enemy_allowed", "errors"}
