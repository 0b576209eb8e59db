"""The kind Plan on a small ruleset of its own: computed values in order (expressions, structures,
parameter formulas, loops with keys and groups, another rule's run), constraints over loops with
their paths and messages in both languages, refusals of a rule run, and the located findings of
``validate``; each case a table row."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruleset_support import manifest, write

from interpreter.engine import runner as engine
from interpreter.checks.loading import collect, load_ruleset
from rules_dsl.dice import SeededDice
from rules_dsl.errors import MprError

SPLIT = """\
id: t.split
kind: Allocation
source: R14
title: {en: Split}
fields: {members: who}
inputs:
  type: object
  properties: {cost: {type: integer}, who: {type: array, items: {type: string}}, shares: {type: object}}
params: {remainder_to: first}
"""
PLAN = """\
id: t.plan
kind: Plan
source: R11
title: {en: Plan}
inputs:
  type: object
  properties:
    members:
      type: array
      items:
        type: object
        properties:
          id: {type: string}
          n: {type: integer}
          tags: {type: array, items: {type: string}, default: []}
    budget: {type: integer}
    shares: {type: object}
params: {limit: 5, double: total * 2}
computed:
  - name: total
    value: sum(members.n)
  - name: doubled
    formula: double
  - name: by_id
    for_each: [{name: m, in: members}]
    key: m.id
    value: {n: m.n, over: m.n > params.limit, fixed: 0}
  - name: tagged
    for_each: [{name: m, in: members}, {name: t, in: m.tags}]
    key: t
    group: true
    value: m.id
  - name: big
    for_each: [{name: m, in: members, where: m.n > 2}]
    value: m.id
  - name: paid
    rule: t.split
    inputs: {cost: budget, who: members.id, shares: shares}
    refusals: [MPR522]
  - name: nothing
    when: total > 100
    value: total
constraints:
  - id: over_limit
    code: MPR578
    for_each: [{name: m, in: members, index: i}]
    check: m.n <= params.limit
    path: "members[{i}].n"
    message: {ja: "{m.id} の値 {m.n} は上限 {params.limit} を超えています", en: "{m.id} has {m.n}, above the limit {params.limit}"}
  - id: untagged
    code: MPR579
    severity: note
    for_each: [{name: m, in: members, index: i}]
    when: m.n > 0
    check: len(m.tags) > 0
    once: true
    path: "members[{i}].tags"
    message: {ja: "{m.id} にタグがありません", en: "{m.id} has no tags"}
  - id: paid_refused
    from: paid
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("plan"), PLAN)


def _tree(root: Path, plan: str) -> Path:
    return write(root, {"ruleset.yaml": manifest("t"), "rules.yaml": SPLIT + "---\n" + plan})


def _run(root: Path, inputs: dict[str, Any], lang: str = "en") -> Any:
    return engine.run(load_ruleset(root), "t.plan", inputs, SeededDice(1), lang=lang).value


M = [{"id": "a", "n": 3, "tags": ["x", "y"]}, {"id": "b", "n": 7}, {"id": "c", "n": 1, "tags": ["x"]}]

RUNS = [
    ("computed in order, loops, keys and groups",
     {"members": M, "budget": 5}, "en",
     {"total": 11, "doubled": 22,
      "by_id": {"a": {"n": 3, "over": False, "fixed": 0}, "b": {"n": 7, "over": True, "fixed": 0},
                "c": {"n": 1, "over": False, "fixed": 0}},
      "tagged": {"x": ["a", "c"], "y": ["a"]}, "big": ["a", "b"],
      "paid": {"a": 2, "b": 2, "c": 1}, "nothing": None}),
    ("a constraint over a loop points at the item; a note keeps the plan legal; once reports one",
     {"members": M, "budget": 3}, "en",
     {"legal": False,
      "errors": [{"code": "MPR578", "path": "members[1].n", "message": "b has 7, above the limit 5"}],
      "notes": [{"code": "MPR579", "path": "members[1].tags", "message": "b has no tags"}]}),
    ("the messages in Japanese",
     {"members": M, "budget": 3}, "ja",
     {"errors": [{"code": "MPR578", "path": "members[1].n", "message": "b の値 7 は上限 5 を超えています"}],
      "notes": [{"code": "MPR579", "path": "members[1].tags", "message": "b にタグがありません"}]}),
    ("a refusal of the rule run is an error of the plan, its value null",
     {"members": M[:1], "budget": 3, "shares": {"a": 2}}, "en",
     {"legal": False, "paid": None,
      "errors": [{"code": "MPR522", "path": "shares", "message": "the shares sum to 2, but the cost is 3"}],
      "notes": []}),
    ("a when on a loop's item skips it",
     {"members": [{"id": "z", "n": 0}], "budget": 0}, "en", {"legal": True, "notes": []}),
]


@pytest.mark.parametrize("name, inputs, lang, expect", RUNS, ids=[r[0] for r in RUNS])
def test_runs(root: Path, name: str, inputs: dict, lang: str, expect: dict) -> None:
    value = _run(root, inputs, lang)
    assert list(value)[0] == "legal" and list(value)[-2:] == ["errors", "notes"]
    assert {k: value[k] for k in expect} == expect


def test_an_error_not_listed_in_refusals_stops_the_run(root: Path) -> None:
    with pytest.raises(MprError) as raised:
        _run(root, {"members": M[:1], "budget": 3, "shares": {"a": 3, "z": 0}})
    assert (raised.value.code, raised.value.loc.path) == ("MPR521", "shares.z")


def test_the_run_of_another_rule_is_traced(root: Path) -> None:
    result = engine.run(load_ruleset(root), "t.plan", {"members": M, "budget": 5}, SeededDice(1))
    steps = [step.label for step in result.trace[0].children]
    assert "t.split" in steps and "by_id[b].over" in steps


RESULT = PLAN + """\
result:
  ok: legal
  sum: total
  problems: errors
  first: "errors[0].path if len(errors) > 0 else null"
"""


def test_result_gives_the_shape(tmp_path: Path) -> None:
    value = _run(_tree(tmp_path, RESULT), {"members": M, "budget": 5})
    assert value == {"ok": False, "sum": 11, "problems": value["problems"], "first": "members[1].n"}


RUN_ERRORS = [
    ("    value: sum(members.n)\n", "    value: sum(members.n)\n  - name: odd\n    for_each: [{name: m, in: budget}]\n    value: m\n", "MPR560"),
    ("    key: m.id\n", "    key: \"'same'\"\n", "MPR561"),
    ("    check: m.n <= params.limit\n", "    check: m.n\n", "MPR562"),
    ("    key: t\n", "    key: \"m.n > 0\"\n", "MPR563"),
]


@pytest.mark.parametrize("old, new, code", RUN_ERRORS,
                         ids=["a loop over a number", "a key twice", "a check that is not a condition",
                              "a key that is a boolean"])
def test_run_errors_are_located_in_the_document(tmp_path: Path, old: str, new: str, code: str) -> None:
    assert old in PLAN
    root = _tree(tmp_path, PLAN.replace(old, new, 1))
    with pytest.raises(MprError) as raised:
        _run(root, {"members": M, "budget": 5})
    assert raised.value.code == code
    assert raised.value.loc.file.endswith("rules.yaml") and raised.value.loc.line is not None


# (name, old text, new text, code, where: the text the finding points at, or None)
FINDINGS = [
    ("a value computed later", "    value: sum(members.n)\n", "    value: sum(members.n) + len(big)\n",
     "MPR567", "big)"),
    ("an unknown name", "    value: m.id\n  - name: paid", "    value: mm.id\n  - name: paid",
     "MPR566", "mm.id"),
    ("a name used twice", "  - name: big\n", "  - name: total\n", "MPR568", "total\n    for_each: [{name: m, in: members, where"),
    ("a loop name hiding an input", "{name: m, in: members, where: m.n > 2}]\n    value: m.id",
     "{name: budget, in: members, where: budget.n > 2}]\n    value: budget.id", "MPR568",
     "budget, in: members, where"),
    ("a formula of a missing parameter", "    formula: double\n", "    formula: triple\n", "MPR572", None),
    ("a formula that is not text", "params: {limit: 5, double: total * 2}", "params: {limit: 5, double: 2}",
     "MPR572", None),
    ("a code the catalogue uses", "    code: MPR578\n", "    code: MPR100\n", "MPR570", "MPR100"),
    ("a code twice", "    code: MPR579\n", "    code: MPR578\n", "MPR569", None),
    ("an id twice", "  - id: untagged\n", "  - id: over_limit\n", "MPR569", None),
    ("a refusal source that is no rule run", "    from: paid\n", "    from: total\n", "MPR571", "total"),
    ("an unknown name in a message", "above the limit {params.limit}", "above the limit {limt}",
     "MPR566", "limt}"),
    ("an unknown parameter", "    check: m.n <= params.limit\n", "    check: m.n <= params.limt\n",
     "MPR352", "limt\n"),
    ("an unknown rule", "    rule: t.split\n", "    rule: t.splt\n", "MPR354", "t.splt"),
]


def _position(text: str, new: str, marker: str) -> tuple[int, int]:
    """The (line, column) where ``marker`` first stands in ``text`` after ``new``, from 1."""
    before = text[:text.index(marker, text.index(new))]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


@pytest.mark.parametrize("name, old, new, code, where", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_validate_findings(tmp_path: Path, name: str, old: str, new: str, code: str,
                           where: str | None) -> None:
    assert old in PLAN
    plan = PLAN.replace(old, new, 1)
    _, findings = collect(_tree(tmp_path, plan))
    found = [d for d in findings if d.severity == "error"]
    assert [d.code for d in found] == [code], found
    assert found[0].file.endswith("rules.yaml") and found[0].line is not None
    if where is not None:
        line, column = _position(SPLIT + "---\n" + plan, new, where)
        assert found[0].line == line
        # a placeholder in a quoted text: the text's position is its opening quote's
        assert found[0].column == column - (1 if where.endswith("}") else 0)


def test_the_bundled_document_is_clean(root: Path) -> None:
    _, findings = collect(root)
    assert [d for d in findings if d.severity == "error"] == []


# --- the house-rule variants: one parameter formula each, no Python ---------------------------

def _pcs(*names: str) -> list[dict[str, str]]:
    return [{"id": n, "region": "下町", "residence": "集合住宅"} for n in names]


HOUSE_RULES = [
    ("min_residence_share", {"residence_share": "max(1, split[pc])"},
     {"residents": _pcs("a", "b", "c"), "costs": {"region": 1, "residence": 1}},
     {"a": 1, "b": 0, "c": 0}, {"a": 1, "b": 1, "c": 1}),
    ("crowded_residence", {"residence_cost": "costs.residence + max(0, len(residents) - 3)"},
     {"residents": _pcs("a", "b", "c", "d", "e"), "costs": {"region": 1, "residence": 4}},
     {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}, {"a": 2, "b": 1, "c": 1, "d": 1, "e": 1}),
    ("crowded_residence", {"residence_cost": "costs.residence + max(0, len(residents) - 3)"},
     {"residents": _pcs("a", "b", "c"), "costs": {"region": 1, "residence": 4}},
     {"a": 2, "b": 1, "c": 1}, {"a": 2, "b": 1, "c": 1}),
]


@pytest.mark.parametrize("name, params, inputs, base, variant", HOUSE_RULES,
                         ids=[f"{h[0]}-{len(h[2]['residents'])}" for h in HOUSE_RULES])
def test_house_rules(name: str, params: dict, inputs: dict, base: dict, variant: dict) -> None:
    from interpreter.reports.diff import compare
    from interpreter.checks.examples import run_examples
    from interpreter.documents.resources import rulesets_dir

    root = rulesets_dir() / "examples" / "house_rules" / name
    base_rules, house = load_ruleset(rulesets_dir() / "magipunk"), load_ruleset(root)
    assert all(d.severity != "error" for d in collect(root)[1])
    outcomes = run_examples(house)
    assert outcomes and all(o.passed for o in outcomes)
    changes = compare(base_rules, house).to_json()["changes"]
    assert [(c["rule"], {p["name"]: p["new"] for p in c["params"]}, c["rows"], c["fields"])
            for c in changes] == [("cohabitation.setup", params, [], [])]
    for rules, split in ((base_rules, base), (house, variant)):
        value = engine.run(rules, "cohabitation.setup", inputs, SeededDice(1)).value
        assert value["legal"] and value["residence_split"] == split
        assert {pc: lp["residence"] for pc, lp in value["life_points"].items()} == split
