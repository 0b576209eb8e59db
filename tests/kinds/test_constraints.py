"""``constraints:`` on every kind (the engine checks them after the kind's logic): a kind whose
value has ``legal`` gets the reports in ``errors``/``notes`` and becomes illegal; any other kind
refuses the run with MPR780, located at the input path the constraint names; ``validate`` checks
the names they use. Each case a table row over a small ruleset of its own."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruleset_support import manifest, write

from interpreter.engine import runner as engine
from interpreter.checks.loading import collect, load_ruleset
from rules_dsl.dice import SeededDice
from rules_dsl.errors import MprError

TABLE = """\
id: t.cost
kind: SumTable
source: house rule
title: {en: Cost}
inputs:
  type: object
  properties:
    parts: {type: array, items: {type: object, properties: {price: {type: integer}}}}
params: {cap: 1000}
rows:
  - {id: parts, when: "true", value: sum(parts.price)}
constraints:
  - id: under_cap
    for_each: [{name: p, in: parts, index: i}]
    check: p.price <= params.cap
    path: "parts[{i}].price"
    message: {ja: "部品 {i} の値段 {p.price} は上限 {params.cap} を超えています", en: "part {i} costs {p.price}, above {params.cap}"}
  - id: total_note
    severity: note
    check: result < 1500
    message: {ja: "合計 {result} は高価です", en: "the total {result} is dear"}
"""

PACKAGE = """\
id: t.brief
kind: Package
source: house rule
title: {en: Brief}
inputs:
  type: object
  properties:
    plan: {type: object, additionalProperties: {type: array, items: {type: string}}}
  required: [plan]
params: {allowance: 6, counting: total, options: [a, b, c], same_option_max: 2}
param_schema:
  same_option_max: {type: integer, minimum: 1}
plan:
  sides:
    - {plan: plan, label: {ja: PC, en: PC}, counts: per_pc}
constraints:
  - id: same_option
    once: true
    for_each: [{name: pc, in: plan}, {name: option, in: "unique(plan[pc])"}]
    check: count(plan[pc], option) <= params.same_option_max
    path: "plan.{pc}"
    message: {ja: "{pc} は {option} を {count(plan[pc], option)} 回選んでいます（{params.same_option_max} 回まで）", en: "{pc} chose {option} {count(plan[pc], option)} times (at most {params.same_option_max})"}
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("constraints"), {
        "ruleset.yaml": manifest("t"), "cost.yaml": TABLE, "brief.yaml": PACKAGE})


def _value(root: Path, rule: str, inputs: dict[str, Any], lang: str = "en") -> Any:
    return engine.run(load_ruleset(root), rule, inputs, SeededDice(1), lang=lang).value


VERDICTS = [
    ("within every limit", {"plan": {"pc1": ["a", "a", "b", "c", "c", "b"]}}, "en", True, []),
    ("an option three times", {"plan": {"pc1": ["a", "a", "a", "b"], "pc2": ["c"]}}, "en", False,
     [{"code": "same_option", "message": "pc1 chose a 3 times (at most 2)", "path": "plan.pc1"}]),
    ("the document's own Japanese", {"plan": {"pc2": ["b", "b", "b"]}}, "ja", False,
     [{"code": "same_option", "message": "pc2 は b を 3 回選んでいます（2 回まで）", "path": "plan.pc2"}]),
]


@pytest.mark.parametrize("name,inputs,lang,legal,errors", VERDICTS, ids=[v[0] for v in VERDICTS])
def test_a_broken_constraint_makes_a_verdict_illegal(root: Path, name: str, inputs: dict, lang: str,
                                                     legal: bool, errors: list) -> None:
    value = _value(root, "t.brief", inputs, lang)
    assert value["legal"] is legal
    assert [e for e in value["errors"] if e["code"] == "same_option"] == errors
    assert value["notes"] == []


def test_the_kind_s_own_breaches_stay_beside_the_constraint_s(root: Path) -> None:
    value = _value(root, "t.brief", {"plan": {"pc1": ["a", "a", "a", "b", "b", "c", "c"]}})
    assert [e["code"] for e in value["errors"]] == ["MPR701", "same_option"]


RUNS = [
    ("holds", {"parts": [{"price": 100}, {"price": 200}]}, None, None),
    ("a note does not refuse", {"parts": [{"price": 900}, {"price": 900}]}, None, None),
    ("an error refuses, located at the input", {"parts": [{"price": 100}, {"price": 1200}]},
     "MPR780", "parts[1].price"),
]


@pytest.mark.parametrize("name,inputs,code,path", RUNS, ids=[r[0] for r in RUNS])
def test_a_kind_without_legal_refuses(root: Path, name: str, inputs: dict, code: str | None,
                                      path: str | None) -> None:
    if code is None:
        assert _value(root, "t.cost", inputs) == sum(p["price"] for p in inputs["parts"])
        return
    with pytest.raises(MprError) as caught:
        _value(root, "t.cost", inputs)
    assert caught.value.code == code
    assert caught.value.loc is not None and caught.value.loc.path == path
    assert "part 1 costs 1200, above 1000" in caught.value.message("en")
    assert "上限 1000 を超えています" in caught.value.message("ja")


def test_a_note_is_traced(root: Path) -> None:
    result = engine.run(load_ruleset(root), "t.cost", {"parts": [{"price": 900}, {"price": 900}]},
                        SeededDice(1))
    steps = list(result.trace)
    for step in steps:  # every step, nested ones too
        steps.extend(step.children)
    assert any(step.kind == "note" and step.value == "the total 1800 is dear" for step in steps)


FINDINGS = [
    ("an unknown name", "check: result < 1500", "check: reslt < 1500", "MPR566"),
    ("the document as it is", "", "", None),
    ("a name no loop binds in a message", "part {i} costs {p.price}", "part {i} costs {q.price}",
     "MPR566"),
    ("a name no loop binds in a path", 'path: "parts[{i}].price"', 'path: "parts[{j}].price"',
     "MPR566"),
    ("a constraint without a message", "    message: {ja: \"合計 {result} は高価です\", en: \"the total {result} is dear\"}\n", "",
     "MPR302"),
]


@pytest.mark.parametrize("name,old,new,code", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_validate_checks_the_constraints_of_any_kind(tmp_path: Path, name: str, old: str, new: str,
                                                     code: str | None) -> None:
    assert old in TABLE
    write(tmp_path, {"ruleset.yaml": manifest("t"), "cost.yaml": TABLE.replace(old, new) if old else TABLE})
    _, findings = collect(tmp_path)
    errors = [f for f in findings if f.severity == "error"]
    if code is None:
        assert errors == []
        return
    assert code in [f.code for f in errors], errors
    assert all(f.line is not None for f in errors)


WEATHER = """\
id: t.weather
kind: RollTable
source: house rule
title: {en: Weather}
params: {roll: 1d6}
rows:
  - {roll: [1, 6], id: any, value: 1}
constraints:
  - id: rolled_at_the_table
    severity: note
    check: roll != null
    message: {ja: "出目は {result.roll}（自動で振りました）", en: "rolled {result.roll} (by mprules)"}
"""


@pytest.mark.parametrize("inputs, notes", [({"roll": 4}, 0), ({}, 1)])
def test_a_constraint_sees_the_inputs_a_kind_always_takes(tmp_path: Path, inputs: dict, notes: int) -> None:
    write(tmp_path, {"ruleset.yaml": manifest("t"), "weather.yaml": WEATHER})
    _, findings = collect(tmp_path)
    assert [f for f in findings if f.severity == "error"] == []
    result = engine.run(load_ruleset(tmp_path), "t.weather", inputs, SeededDice(1))
    steps = list(result.trace)
    for step in steps:
        steps.extend(step.children)
    assert len([s for s in steps if s.kind == "note" and str(s.value).startswith("rolled")]) == notes


ODDS = """\
id: t.odds
kind: RollTable
source: house rule
title: {en: Odds}
inputs:
  type: object
  properties:
    level: {type: integer}
params: {roll: 1d6, least: 2}
rows:
  - {roll: [1, 3], id: low, value: 1}
  - {roll: [4, 6], id: high, value: 2}
constraints:
  - id: trained
    check: level >= params.least
    path: level
    message: {ja: "レベル {level} では振れません", en: "level {level} cannot roll"}
  - id: rookie
    severity: note
    check: level > params.least
    message: {ja: "レベル {level} は新人です", en: "level {level} is a rookie"}
  - id: no_low
    check: result.id != 'low'
    message: {ja: "低い目は振り直し", en: "roll a low again"}
  - id: told
    severity: note
    check: level < 100
    message: {ja: "出目 {result.roll}", en: "rolled {result.roll}"}
"""

# (name, inputs, the code refused with or None, the notes every table ends with)
PROB_CASES = [
    ("an input-only error refuses as run does", {"level": 1}, "MPR780", None),
    ("held: the odds, a note for each constraint that reads the result",
     {"level": 5}, None, ["MPR565", "MPR565"]),
    ("a broken note is told beside them", {"level": 2}, None, ["MPR565", "MPR565", "rookie: level 2 is a rookie"]),
]


@pytest.mark.parametrize("name,inputs,code,notes", PROB_CASES, ids=[c[0] for c in PROB_CASES])
def test_prob_checks_the_constraints_the_inputs_decide(tmp_path: Path, name: str, inputs: dict,
                                                        code: str | None, notes: list | None) -> None:
    write(tmp_path, {"ruleset.yaml": manifest("t"), "odds.yaml": ODDS})
    ruleset = load_ruleset(tmp_path)
    if code is not None:
        with pytest.raises(MprError) as caught:
            engine.distribution(ruleset, "t.odds", inputs)
        with pytest.raises(MprError) as by_run:
            engine.run(ruleset, "t.odds", inputs, SeededDice(1))
        assert caught.value.code == by_run.value.code == code
        assert caught.value.message("ja").split("\n")[0] == by_run.value.message("ja").split("\n")[0]
        assert caught.value.loc is not None and caught.value.loc.path == "level"
        return
    tables = engine.distribution(ruleset, "t.odds", inputs)
    plain = load_ruleset(write(tmp_path / "plain", {"ruleset.yaml": manifest("t"),
                                                    "odds.yaml": ODDS[:ODDS.index("constraints:")]}))
    assert [[(r.value, r.p) for r in t.rows] for t in tables] == \
        [[(r.value, r.p) for r in t.rows] for t in engine.distribution(plain, "t.odds", inputs)]
    for table in tables:
        lines = (table.note or "").split("\n")[-len(notes):]
        assert [line.split(" ")[0] if line.startswith("MPR") else line for line in lines] == notes
    assert "no_low" in tables[0].note and "told" in tables[0].note and "trained" not in tables[0].note
    assert "出た値" in engine.distribution(ruleset, "t.odds", inputs, lang="ja")[0].note
