"""Cohabitation (R11-R16) on the bundled ruleset: rent splits, setup plans, leisure dedup cases and
bad inputs, all data-driven; plus properties of the pure dedup procedure."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.engine import runner as engine
from interpreter.kinds.roll_per_member import table_rows
from interpreter.solvers.repeat_policy import (ADJUSTED, AS_ROLLED, NEAREST_LOWER, UNRESOLVED, Entry,
                                             TableRows, Policy, Shift, resolve_session, resolve_roll)
from interpreter.checks.loading import apply_caller, load_ruleset
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import MprError

CASES = Path(__file__).parents[1] / "cases" / "cohabitation"

def leisure_table(ruleset, table_rule):
    """The rows of a bundled leisure table as the bundled policy sees them (rows tagged shared are once-only)."""
    rule = ruleset.rules["cohabitation.leisure"]
    return table_rows(table_rule, rule, ("repeat",), {"params": rule.params})



def _cases(name: str) -> list[Any]:
    cases = yaml.safe_load((CASES / name).read_text(encoding="utf-8"))
    return [pytest.param(case, id=case["name"]) for case in cases]


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset()


def _run(ruleset, rule_id: str, inputs: dict[str, Any], params: dict[str, Any] | None = None,
         dice: list[int] | None = None) -> Any:
    view = ruleset
    if params:
        view = copy.deepcopy(ruleset)
        assert not apply_caller(view, {rule_id: params}, None)
    source = ScriptedDice(dice) if dice is not None else SeededDice(1)
    return engine.run(view, rule_id, inputs, source).value


# --- R14 rent split ----------------------------------------------------------------------------

@pytest.mark.parametrize("case", _cases("rent_split.yaml"))
def test_rent_split(ruleset, case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(MprError) as raised:
            _run(ruleset, "cohabitation.rent_split", case["input"], case.get("params"))
        assert raised.value.code == case["error"]
        if "path" in case:
            assert raised.value.loc.path == case["path"]
    else:
        split = _run(ruleset, "cohabitation.rent_split", case["input"], case.get("params"))
        assert split == case["expect"]
        assert list(split) == list(case["expect"])  # in the residents' order
        assert sum(split.values()) == case["input"]["cost"]


# --- R11-R15 setup -----------------------------------------------------------------------------

def _pc(pc: str, region: str = "下町", residence: str = "集合住宅", **more: Any) -> dict[str, Any]:
    return {"id": pc, "region": region, "residence": residence, **more}


SETUP = [
    ("legal flat", [_pc("a"), _pc("b")], {}, []),
    ("regions differ", [_pc("a"), _pc("b", region="上層"), _pc("c", region="上層")], {},
     [("MPR531", "residents[1].region"), ("MPR531", "residents[2].region")]),
    ("residences differ", [_pc("a"), _pc("b", residence="一軒家")], {},
     [("MPR532", "residents[1].residence")]),
    ("学生寮 cannot be shared", [_pc("a", residence="学生寮"), _pc("b", residence="学生寮")], {},
     [("MPR533", "residents[0].residence")]),
    ("兵舎 cannot be shared", [_pc("a", residence="兵舎"), _pc("b", residence="兵舎")], {},
     [("MPR533", "residents[0].residence")]),
    ("one PC is no cohabitation", [_pc("a")], {}, [("MPR530", "residents")]),
    ("a PC who does not consent", [_pc("a"), _pc("b", consent=False)], {},
     [("MPR534", "residents[1].consent")]),
    ("uneven split without consent", [_pc("a"), _pc("b")], {"shares": {"a": 5, "b": 0}},
     [("MPR523", "consent")]),
    ("shares that do not sum", [_pc("a"), _pc("b")], {"shares": {"a": 3, "b": 3}, "consent": True},
     [("MPR522", "shares")]),
    ("uneven split with consent", [_pc("a"), _pc("b")], {"shares": {"a": 5, "b": 0}, "consent": True}, []),
]


@pytest.mark.parametrize("name, residents, extra, reasons", SETUP, ids=[s[0] for s in SETUP])
def test_setup(ruleset, name: str, residents: list, extra: dict, reasons: list) -> None:
    value = _run(ruleset, "cohabitation.setup",
                 {"residents": residents, "costs": {"region": 2, "residence": 5}, **extra})
    assert [(r["code"], r["path"]) for r in value["reasons"]] == reasons
    assert value["legal"] is (not reasons)
    for pc in value["life_points"].values():
        assert pc["region"] == 2  # R13: each pays the region in full
    if value["residence_split"] is not None:
        assert sum(value["residence_split"].values()) == 5


def test_setup_pays_and_shares(ruleset) -> None:
    value = _run(ruleset, "cohabitation.setup", {
        "residents": [_pc("a", facilities=["工房", "祭壇"], occupation="技師", activities=["研究"]),
                      _pc("b", facilities=["工房", "倉庫"]), _pc("c")],
        "costs": {"region": 3, "residence": 4},
        "facility_data": {"工房": {"shareable": True}, "祭壇": {"shareable": False}}})
    assert value["residence_split"] == {"a": 2, "b": 1, "c": 1}
    assert value["life_points"]["a"] == {"region": 3, "residence": 2, "total": 5}
    assert value["facilities"] == {"shared": [{"name": "工房", "installed_by": ["a", "b"]}],
                                   "per_pc": {"a": ["祭壇"], "b": ["倉庫"], "c": []}}
    assert [(n["code"], n["path"]) for n in value["notes"]] == [("MPR535", "residents[1].facilities[1]")]
    assert value["per_pc"]["a"] == {"occupation": "技師", "activities": ["研究"]}


def test_setup_non_shareable_list_is_a_parameter(ruleset) -> None:
    value = _run(ruleset, "cohabitation.setup",
                 {"residents": [_pc("a", residence="学生寮"), _pc("b", residence="学生寮")],
                  "costs": {"region": 1, "residence": 1}},
                 params={"non_shareable_residences": ["孤児院"]})
    assert value["legal"] is True


@pytest.mark.parametrize("inputs, code, path", [
    ({"residents": [_pc("a"), _pc("a")], "costs": {"region": 1, "residence": 1}}, "MPR520", "residents[1]"),
    # a negative cost is refused by the inputs schema (minimum: 0)
    ({"residents": [_pc("a"), _pc("b")], "costs": {"region": -1, "residence": 1}}, "MPR500", "costs.region"),
    ({"residents": [_pc("a"), _pc("b")], "costs": {"region": 1, "residence": 2},
      "shares": {"a": 1, "z": 1}}, "MPR521", "shares.z"),
    ({"residents": [_pc("a"), _pc("b")], "costs": {"region": 1, "residence": 2},
      "shares": {"a": 2, "b": 0}, "consnt": True}, "MPR500", "consnt"),
], ids=["resident twice", "negative region cost", "share of a non-resident", "misspelt field"])
def test_setup_bad_input(ruleset, inputs: dict, code: str, path: str) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, "cohabitation.setup", inputs)
    assert (raised.value.code, raised.value.loc.path) == (code, path)


# --- R16 leisure -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", _cases("leisure.yaml"))
def test_leisure_dedup(ruleset, case: dict[str, Any]) -> None:
    residents = [f"pc{i}" for i in range(1, len(case["rolls"]) + 1)]
    params = {"tie": case["tie"]} if "tie" in case else None
    value = _run(ruleset, "cohabitation.leisure",
                 {"table": case["table"], "safety": case["safety"], "residents": residents,
                  "rolls": dict(zip(residents, case["rolls"]))}, params)
    got = [[r["final_roll"], r["event"], r["how"]] for r in value["results"]]
    assert got == case["expect"]
    assert value["shared_events"] == case["shared"]
    assert [r["pc"] for r in value["results"]] == residents
    assert [r["rolled"] for r in value["results"]] == case["rolls"]
    for result in value["results"]:
        assert ("options" in result) is (result["how"] == UNRESOLVED)


@pytest.mark.parametrize("case", _cases("leisure_shift.yaml"))
def test_leisure_shift(ruleset, case: dict[str, Any]) -> None:
    residents = [f"pc{i}" for i in range(1, len(case["rolls"]) + 1)]
    inputs = {"table": case["table"], "safety": case["safety"], "residents": residents,
              "rolls": dict(zip(residents, case["rolls"]))}
    if "shift" in case:
        inputs["shift"] = case["shift"]
    if "shifts" in case:
        inputs["shifts"] = {pc: s for pc, s in zip(residents, case["shifts"]) if s is not None}
    value = _run(ruleset, "cohabitation.leisure", inputs)
    got = [[r.get("shifted", r["rolled"]), r["final_roll"], r["event"], r["how"]] for r in value["results"]]
    assert got == case["expect"]
    assert value["shared_events"] == case["shared"]
    stated = case.get("shift", "none") != "none"
    for result, own in zip(value["results"], case.get("shifts") or [None] * len(residents)):
        assert ("shifted" in result) is (stated or own is not None)


@pytest.mark.parametrize("inputs, code, path", [
    ({"shifts": {"a": 3}}, "MPR582", "shifts.a"),
    ({"shift": -3}, "MPR582", "shift"),
    ({"shift": {"aim": "evicton"}}, "MPR583", "shift.aim"),
    ({"shift": {"aim": ["eviction", "crime_fallin"]}}, "MPR583", "shift.aim[1]"),
    ({"shifts": {"z": 1}}, "MPR543", "shifts.z"),
    ({"shift": "up"}, "MPR500", "shift"),
], ids=["per resident too far", "everyone too far", "unknown row", "unknown row in a list",
        "a change for a non-resident", "not a choice"])
def test_leisure_shift_bad_input(ruleset, inputs: dict, code: str, path: str) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, "cohabitation.leisure", {"table": "city", "safety": 2, "residents": ["a"], **inputs})
    assert (raised.value.code, raised.value.loc.path) == (code, path)
    assert raised.value.message("ja") != raised.value.message("en")


@pytest.mark.parametrize("shift", ["up", {"aim": 3}, {"aim": []}, {"aim": "eviction", "else": 1}, True])
def test_leisure_shift_malformed_under_a_loose_schema(ruleset, shift) -> None:
    with pytest.raises(MprError) as raised:
        engine.run(_loose(ruleset, "cohabitation.leisure"), "cohabitation.leisure",
                   {"table": "city", "safety": 2, "residents": ["a"], "shift": shift}, SeededDice(1))
    assert (raised.value.code, raised.value.loc.path) == ("MPR584", "shift")


def test_unresolved_lists_the_options(ruleset) -> None:
    value = _run(ruleset, "cohabitation.leisure",
                 {"table": "wilderness", "safety": 0, "residents": ["a", "b"], "rolls": {"a": 1, "b": 1}})
    second = value["results"][1]
    assert second["how"] == "unresolved" and second["final_roll"] is None
    assert [o["roll"] for o in second["options"]] == list(range(2, 14))
    assert second["options"][0]["event"] == "magic_disaster"


def test_leisure_rolls_dice_for_residents_without_a_roll(ruleset) -> None:
    # a: 3+4 = 7 (burglary_light); b: 5+2 = 7 again, moved by safety 1 to 6 (tie to the lower)
    value = _run(ruleset, "cohabitation.leisure",
                 {"table": "city", "safety": 1, "residents": ["a", "b"]}, dice=[3, 4, 5, 2])
    assert [(r["rolled"], r["final_roll"], r["how"]) for r in value["results"]] == \
        [(7, 7, "as_rolled"), (7, 6, "adjusted")]


def test_leisure_window_is_a_parameter(ruleset) -> None:
    # a variant ignores 治安: every repeat falls to the nearest lower roll
    value = _run(ruleset, "cohabitation.leisure",
                 {"table": "city", "safety": 3, "residents": ["a", "b"], "rolls": {"a": 7, "b": 7}},
                 params={"window": "0"})
    assert [(r["final_roll"], r["how"]) for r in value["results"]] == [(7, "as_rolled"), (6, "nearest_lower")]


def test_leisure_text_is_the_seed_text(ruleset) -> None:
    result = engine.run(ruleset, "cohabitation.leisure",
                        {"table": "wilderness", "safety": 0, "residents": ["a"], "rolls": {"a": 6}},
                        SeededDice(0), lang="ja")
    assert result.value["results"][0]["text"] == "突如として魔煌災害が発生した。"


@pytest.mark.parametrize("inputs, code, path", [
    ({"table": "city", "safety": 1, "residents": ["a", "a"]}, "MPR520", "residents[1]"),
    ({"table": "city", "safety": 1, "residents": ["a"], "rolls": {"a": 1}}, "MPR540", "rolls.a"),
    ({"table": "wilderness", "safety": 1, "residents": ["a"], "rolls": {"a": 14}}, "MPR540", "rolls.a"),
    ({"table": "city", "safety": 1, "residents": ["a"], "rolls": {"z": 7}}, "MPR543", "rolls.z"),
    ({"table": "citty", "safety": 1, "residents": ["a"]}, "MPR542", "table"),
    ({"table": "city", "safety": 1, "residents": ["a"], "rol": {"a": 7}}, "MPR500", "rol"),
], ids=["resident twice", "below the city table", "above the wilderness table", "roll of a non-resident",
        "unknown table", "misspelt rolls"])
def test_leisure_bad_input(ruleset, inputs: dict, code: str, path: str) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, "cohabitation.leisure", inputs)
    assert (raised.value.code, raised.value.loc.path) == (code, path)


def _loose(ruleset, rule_id: str):
    """The ruleset with ``rule_id``'s inputs schema loosened to any mapping, as a GM's own document
    of the same kind may have: the kind itself must still refuse malformed fields with codes."""
    view = copy.deepcopy(ruleset)
    view.rules[rule_id].doc["inputs"] = {"type": "object"}
    return view


FLAT = {"costs": {"region": 1, "residence": 2}}


@pytest.mark.parametrize("rule_id, inputs, code, path", [
    ("cohabitation.leisure", {"table": ["city"], "safety": 1, "residents": ["a"]}, "MPR542", "table"),
    ("cohabitation.leisure", {"table": "city", "safety": 1, "residents": ["a"], "rolls": [7]},
     "MPR581", "rolls"),
], ids=["table a list", "rolls a list"])
def test_malformed_fields_under_a_loose_schema(ruleset, rule_id: str, inputs: dict, code: str,
                                               path: str) -> None:
    with pytest.raises(MprError) as raised:
        engine.run(_loose(ruleset, rule_id), rule_id, inputs, SeededDice(1))
    assert (raised.value.code, raised.value.loc.path) == (code, path)
    assert raised.value.message("ja") != raised.value.message("en")


SETUP_MALFORMED = [
    {"residents": [1], **FLAT},
    {"residents": [_pc("a")], "costs": [1, 2]},
    {"residents": [_pc("a", facilities="工房")], **FLAT},
    {"residents": [_pc("a", facilities=[["工房"]])], **FLAT},
    {"residents": [_pc("a")], "facility_data": [1], **FLAT},
    {"residents": [_pc("a")], "shares": [2], **FLAT},
]


@pytest.mark.parametrize("inputs", SETUP_MALFORMED, ids=[
    "resident not a mapping", "costs not a mapping", "facilities a string", "facilities nested",
    "facility data a list", "shares a list"])
def test_setup_malformed_under_a_loose_schema(ruleset, inputs: dict) -> None:
    """The setup's logic is expressions of its document: under a GM's looser inputs schema a
    malformed field is a coded error located at the expression that cannot use it."""
    with pytest.raises(MprError) as raised:
        engine.run(_loose(ruleset, "cohabitation.setup"), "cohabitation.setup", inputs,
                   SeededDice(1))
    error = raised.value
    assert error.code.startswith("MPR1") or error.code == "MPR500", error.code
    assert error.loc.file.endswith("cohabitation.yaml") and error.loc.line is not None
    assert error.message("ja") != error.message("en")


def test_uneven_shares_are_named_plainly(ruleset) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, "cohabitation.rent_split", {"cost": 6, "residents": ["a", "b"],
                                                  "shares": {"a": 4, "b": 2}})
    assert "(a: 4, b: 2)" in raised.value.message("en")
    assert "（a: 4, b: 2）" in raised.value.message("ja")


def test_unknown_table_suggests(ruleset) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, "cohabitation.leisure", {"table": "citty", "safety": 1, "residents": ["a"]})
    assert "did you mean 'city'" in raised.value.message("en")


# --- the pure procedure on a synthetic GM table: 1 a, 2 b, 3 a (shared), 4 no row, 5 c (individual)

SYNTHETIC = TableRows("gm.table", 1, 5, (Entry("a", True), Entry("b", True), Entry("a", True),
                                             None, Entry("c", False)))


@pytest.mark.parametrize("roll, obtained, window, tie, final, how, options", [
    (3, set(), 0, "lower", 3, AS_ROLLED, []),
    (3, {"a"}, 1, "lower", 2, ADJUSTED, []),
    (3, {"a"}, 1, "higher", 2, ADJUSTED, []),  # 4 has no row: not a result
    (3, {"a", "b"}, 2, "lower", 5, ADJUSTED, []),  # 2 and 1 taken, 4 empty, 5 is individual
    (3, {"a", "b"}, 1, "lower", None, UNRESOLVED, [5]),  # nothing lower, 5 outside the window
    (1, {"a"}, 0, "lower", None, UNRESOLVED, [2, 5]),
    (5, {"a", "b"}, 0, "lower", 5, AS_ROLLED, []),  # individual events repeat freely
])
def test_resolve_roll_on_a_gm_table(roll: int, obtained: set, window: int, tie: str,
                                    final: int | None, how: str, options: list[int]) -> None:
    resolution = resolve_roll(SYNTHETIC, roll, frozenset(obtained), Policy(window, tie))
    assert (resolution.final_roll, resolution.how) == (final, how)
    assert [r for r, _ in resolution.options] == options


def test_a_roll_on_no_row_is_an_error() -> None:
    with pytest.raises(MprError) as raised:
        resolve_roll(SYNTHETIC, 4, frozenset(), Policy(1), "pc1")
    assert raised.value.code == "MPR540"


# --- properties of the pure procedure ----------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(table=st.sampled_from(["city", "wilderness"]), window=st.integers(0, 4),
       tie=st.sampled_from(["lower", "higher"]), data=st.data())
def test_no_shared_event_twice(ruleset, table: str, window: int, tie: str,
                               data: st.DataObject) -> None:
    leisure = leisure_table(ruleset, ruleset.rules[f"cohabitation.leisure.{table}"])
    rolls = data.draw(st.lists(st.integers(leisure.lo, leisure.hi), min_size=1, max_size=8))
    results, order = resolve_session(leisure, [(f"p{i}", r) for i, r in enumerate(rolls)],
                                     Policy(window, tie))
    assert len(order) == len(set(order))
    obtained: set[str] = set()
    for resolution in results:
        event = resolution.entry
        if resolution.how == AS_ROLLED:
            assert resolution.final_roll == resolution.rolled
        elif resolution.how == ADJUSTED:
            assert 0 < abs(resolution.final_roll - resolution.rolled) <= window
        elif resolution.how == NEAREST_LOWER:
            assert resolution.final_roll < resolution.rolled
        else:
            assert event is None and resolution.final_roll is None
        if resolution.final_roll is not None:
            assert leisure.lo <= resolution.final_roll <= leisure.hi
        if event is not None and event.once:
            assert event.id not in obtained
            obtained.add(event.id)


@settings(max_examples=150, deadline=None)
@given(table=st.sampled_from(["city", "wilderness"]), window=st.integers(0, 4),
       tie=st.sampled_from(["lower", "higher"]), data=st.data())
def test_a_change_stays_within_the_window_of_the_roll_as_rolled(ruleset, table: str, window: int, tie: str,
                                                                data: st.DataObject) -> None:
    """Whatever each member chooses, the final roll (moved or not) is within ±window of the roll as
    rolled and inside the table; no shared event twice; a change of 0 is no change."""
    leisure = leisure_table(ruleset, ruleset.rules[f"cohabitation.leisure.{table}"])
    ids = sorted({e.id for e in leisure.entries if e is not None and e.id})
    choice = st.one_of(st.none(), st.builds(lambda c: Shift(window, change=c), st.integers(-window, window)),
                       st.builds(lambda a: Shift(window, aim=tuple(a), tie=tie), st.lists(st.sampled_from(ids), min_size=1, max_size=3)))
    rolls = data.draw(st.lists(st.integers(leisure.lo, leisure.hi), min_size=1, max_size=6))
    shifts = data.draw(st.lists(choice, min_size=len(rolls), max_size=len(rolls)))
    policy = Policy(window, tie)
    results, order = resolve_session(leisure, [(f"p{i}", r) for i, r in enumerate(rolls)], policy, shifts)
    assert len(order) == len(set(order))
    for resolution, shift in zip(results, shifts):
        assert (resolution.shifted is None) is (shift is None)
        if resolution.how in (AS_ROLLED, ADJUSTED):
            assert abs(resolution.final_roll - resolution.rolled) <= window
            assert leisure.lo <= resolution.final_roll <= leisure.hi
    unchanged, _ = resolve_session(leisure, [(f"p{i}", r) for i, r in enumerate(rolls)], policy,
                                   [Shift(window, change=0)] * len(rolls))
    plain, _ = resolve_session(leisure, [(f"p{i}", r) for i, r in enumerate(rolls)], policy)
    assert [(r.final_roll, r.entry, r.how) for r in unchanged] == [(r.final_roll, r.entry, r.how) for r in plain]



@pytest.mark.parametrize("old, new, code", [
    ("rule: cohabitation.rent_split", "rule: cohabitation.rent_splitt", "MPR354"),
    ("formula: residence_share", "formula: residence_shares", "MPR572"),
    ("inputs: {cost: cost,", "inputs: {cost: life_points,", "MPR567"),
    ("wilderness: cohabitation.leisure.wilderness}", "wilderness: cohabitation.rent_split}", "MPR544"),
    ("  window: safety", "  window: safty", "MPR351"),
    ("  remainder_to: first\n", "  remainder_to: middle\n", "MPR3"),
    ("  tie: lower", "  tie: sideways", "MPR544"),
    ("  shared_tag: shared", "  shared_tag: common", "MPR546"),
    ("choice: shift, per_member", "choice: shfit, per_member", "MPR585"),
    ("shift: {window: params.window,", "shift: {window: params.windw,", "MPR352"),
], ids=["unknown rent rule", "formula of a missing parameter", "a value computed later", "leisure table of the wrong kind",
        "misspelt safety", "bad remainder order", "bad tie-break", "no shared rows (warning)",
        "shift names an undeclared input (warning)", "shift window misspelt"])
def test_document_checks(tmp_path, old: str, new: str, code: str) -> None:
    from interpreter.documents.resources import bundled_ruleset
    from interpreter.checks.loading import collect

    for name in ("ruleset.yaml", "cohabitation.yaml"):
        text = (bundled_ruleset() / name).read_text(encoding="utf-8")
        if name == "cohabitation.yaml":
            assert old in text
            text = text.replace(old, new, 1)
        (tmp_path / name).write_text(text, encoding="utf-8")
    _, findings = collect(tmp_path)
    errors = [d for d in findings if d.severity == "error"] or \
        [d for d in findings if d.severity == "warning"]
    assert errors and errors[0].code.startswith(code), errors
    assert errors[0].file.endswith("cohabitation.yaml") and errors[0].line is not None
