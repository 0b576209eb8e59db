"""The one merge rule of variants (interpreter.ruleset.merge) on every field of a document:
formulas, mappings, lists keyed by id or name (before/after/remove/at), added parameters,
``based_on`` (abstract bases, chains, cycles), and replaced rules answering to their old id;
each case a table row."""
from __future__ import annotations

from pathlib import Path

import pytest
from ruleset_support import manifest, write

from interpreter.checks.examples import run_examples
from interpreter.checks.loading import collect, load_ruleset
from interpreter.engine import runner as engine

TABLE = """\
id: t.one
kind: SumTable
source: R9
title: {en: Table}
inputs: {type: object, properties: {n: {type: integer}}, additionalProperties: false}
params: {bonus: 1, divisor: 2}
rows:
  - {id: half, when: n > 0, value: n / params.divisor}
  - {id: bonus, when: 'true', value: params.bonus}
  - {when: n > 10, value: 100}
examples:
  - {name: four, input: {n: 4}, expect: 3}
"""
PLAN = """\
id: t.plan
kind: Plan
source: R11
title: {en: Plan}
inputs: {type: object, properties: {a: {type: integer}, b: {type: integer}}, required: [a, b]}
computed:
  - {name: total, value: a + b}
  - {name: double, value: total * 2}
constraints:
  - {id: positive, check: total > 0, message: {en: positive, ja: 正}}
examples:
  - {name: three, input: {a: 1, b: 2}, expect: {legal: true, total: 3, double: 6, errors: [], notes: []}}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "base", {"ruleset.yaml": manifest("base"), "t.yaml": TABLE, "plan.yaml": PLAN})
    return tmp_path


def variant(tree: Path, extra: str, files: dict[str, str] | None = None) -> Path:
    return write(tree / "v", {"ruleset.yaml": manifest("v", "extends: ../base\n" + extra), **(files or {})})


def codes(root: Path) -> list[str]:
    return [d.code for d in collect(root)[1] if d.severity == "error"]


# -- (name, manifest text, rule, input, what to look at, expected) ---------------------------
CHANGES = [
    ("a formula field", "overrides:\n  t.plan:\n    computed:\n      - {name: total, value: a * b}\n",
     "t.plan", {"a": 2, "b": 3}, "double", 12),
    ("a computed value added before another",
     "overrides:\n  t.plan:\n    computed:\n      - {name: extra, value: a * 10, before: double}\n"
     "      - {name: double, value: total + extra}\n",
     "t.plan", {"a": 1, "b": 2}, "double", 13),
    ("a mapping merges key by key (inputs gain a field)",
     "overrides:\n  t.one:\n    inputs: {properties: {m: {type: integer, default: 0}}}\n"
     "    rows:\n      - {id: m, when: 'true', value: m}\n",
     "t.one", {"n": 4, "m": 5}, None, 8),
    ("a constraint added", "overrides:\n  t.plan:\n    constraints:\n"
     "      - {id: small, check: total < 10, message: {en: small, ja: 小}}\n",
     "t.plan", {"a": 5, "b": 6}, "legal", False),
    ("a constraint removed", "overrides:\n  t.plan:\n    constraints:\n      - {id: positive, remove: true}\n",
     "t.plan", {"a": -5, "b": 1}, "legal", True),
    ("a row placed after another", "overrides:\n  t.one:\n    rows:\n"
     "      - {id: first, when: 'true', value: 1000, after: half}\n", "t.one", {"n": 4}, None, 1003),
    ("an added parameter with its schema",
     "overrides:\n  t.one:\n    params: {extra: 7}\n    param_schema: {extra: {type: integer}}\n"
     "    rows:\n      - {id: extra, when: 'true', value: params.extra}\n", "t.one", {"n": 4}, None, 10),
]


@pytest.mark.parametrize("name, extra, rule, given, key, expected", CHANGES, ids=[c[0] for c in CHANGES])
def test_an_override_changes_any_field(tree, name, extra, rule, given, key, expected):
    root = variant(tree, extra)
    assert codes(root) == []
    value = engine.run(load_ruleset(root), rule, given).value
    assert (value if key is None else value[key]) == expected


def test_a_row_placed_before_keeps_the_order(tree):
    root = variant(tree, "overrides:\n  t.one:\n    rows:\n      - {id: zero, when: 'false', value: 0, before: half}\n"
                         "      - {id: last, when: 'false', value: 0, after: bonus}\n")
    rows = load_ruleset(root).rule("t.one").doc["rows"]
    assert [r.get("id") for r in rows] == ["zero", "half", "bonus", "last", None]
    assert load_ruleset(root).rule("t.one").row_layers == {
        "zero": "v", "half": "base", "bonus": "base", "last": "v", "#5": "base"}


def test_a_changed_formula_drops_the_earlier_examples_and_keeps_the_new(tree):
    root = variant(tree, "overrides:\n  t.plan:\n    computed:\n      - {name: total, value: a * b}\n"
                         "    examples:\n      - {name: six, input: {a: 2, b: 3}, expect: {legal: true, total: 6, double: 12, errors: [], notes: []}}\n")
    rule = load_ruleset(root).rule("t.plan")
    assert [e["name"] for e in rule.doc["examples"]] == ["six"] and rule.example_layers == ["v"]
    assert all(o.passed for o in run_examples(load_ruleset(root)))


def test_the_provenance_of_each_field(tree):
    root = variant(tree, "overrides:\n  t.plan:\n    computed:\n      - {name: total, value: a * b}\n")
    rule = load_ruleset(root).rule("t.plan")
    layer, loc = rule.written_by("computed", 0, "value")
    assert layer == "v" and loc.file.endswith("v/ruleset.yaml") and loc.line == 8
    assert rule.written_by("computed", 1, "value")[0] == "base"
    provenance = rule.provenance()
    assert provenance[("computed", "total")][0] == "v" and provenance[("constraints", "positive")][0] == "base"


# -- findings: (name, manifest text, files, codes, line) --------------------------------------
FINDINGS = [
    ("at and id in one edit", "overrides:\n  t.one:\n    rows:\n      - {at: 1, id: half, remove: true}\n",
     {}, ["MPR916"], 8),
    ("before names no item", "overrides:\n  t.one:\n    rows:\n      - {id: x, when: 'true', value: 1, before: nope}\n",
     {}, ["MPR917"], 8),
    ("before and after together", "overrides:\n  t.one:\n    rows:\n"
     "      - {id: x, when: 'true', value: 1, before: half, after: half}\n", {}, ["MPR918"], 8),
    ("an override writes kind", "overrides:\n  t.one:\n    kind: Plan\n", {}, ["MPR919"], 7),
    ("an override writes based_on", "overrides:\n  t.one:\n    based_on: t.plan\n", {}, ["MPR919"], 7),
    ("an unknown field is the kind schema's finding, located in the variant",
     "overrides:\n  t.one:\n    rowz: []\n", {}, ["MPR303"], 7),
    ("a formula that does not parse, located in the variant",
     "overrides:\n  t.plan:\n    computed:\n      - {name: total, value: 'a +'}\n", {}, ["MPR112"], 8),
    ("a parameter added without its schema", "overrides:\n  t.one:\n    params: {extra: 7}\n", {}, ["MPR412"], 7),
    ("based_on names no rule", "", {"x.yaml": "id: t.x\nbased_on: t.nope\n"}, ["MPR921"], 2),
    ("based_on cycle", "", {"x.yaml": "id: t.x\nbased_on: t.y\n---\nid: t.y\nbased_on: t.x\n"}, ["MPR920"], None),
    ("based_on a document of another kind", "", {"x.yaml": "id: t.x\nkind: Plan\nbased_on: t.one\n"},
     ["MPR922"], 2),
]


@pytest.mark.parametrize("name, extra, files, expected, line", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_findings_point_at_the_layer_that_wrote_them(tree, name, extra, files, expected, line):
    root = variant(tree, extra, files)
    found = [d for d in collect(root)[1] if d.severity == "error"]
    assert [d.code for d in found][:1] == expected[:1] and len({d.code for d in found}) == len(expected)
    if line is not None:
        assert found[0].file.startswith(str(root)) or "v/" in found[0].file
        assert found[0].line == line


# -- based_on ----------------------------------------------------------------------------------
TIERS = """\
id: t.base
abstract: true
kind: SumTable
source: R9
title: {en: Base}
inputs: {type: object, properties: {n: {type: integer}}}
params: {bonus: 1}
rows:
  - {id: n, when: 'true', value: n}
  - {id: bonus, when: 'true', value: params.bonus}
examples:
  - {name: shared, input: {n: 0}, expect: 0, params: {bonus: 0}}
---
id: t.small
based_on: t.base
title: {en: Small}
---
id: t.big
based_on: t.base
title: {en: Big}
params: {bonus: 10}
rows:
  - {id: more, when: n > 5, value: 100, before: bonus}
examples:
  - {name: big, input: {n: 6}, expect: 116}
---
id: t.bigger
based_on: t.big
title: {en: Bigger}
rows:
  - {id: n, remove: true}
"""


def test_based_on_inherits_what_it_does_not_write(tree):
    write(tree / "base", {"tiers.yaml": TIERS})
    ruleset = load_ruleset(tree / "base")
    assert "t.base" not in ruleset.rules and "t.base" in ruleset.bases
    assert engine.run(ruleset, "t.small", {"n": 2}).value == 3
    assert engine.run(ruleset, "t.big", {"n": 6}).value == 116
    assert engine.run(ruleset, "t.bigger", {"n": 6}).value == 110
    big = ruleset.rule("t.big")
    assert [r["id"] for r in big.doc["rows"]] == ["n", "more", "bonus"]
    assert big.written_by("rows", 0, "value")[1].file.endswith("tiers.yaml")
    assert big.param_layers == {"bonus": "base"}
    assert [e["name"] for e in big.doc["examples"]] == ["big"]  # its rows changed: the base's went
    assert [e["name"] for e in ruleset.rule("t.small").doc["examples"]] == ["shared"]
    assert all(o.passed for o in run_examples(ruleset))
    assert [d.code for d in collect(tree / "base")[1] if d.severity == "error"] == []


def test_an_override_of_a_base_reaches_the_documents_based_on_it(tree):
    write(tree / "base", {"tiers.yaml": TIERS})
    root = variant(tree, "overrides:\n  t.base:\n    rows:\n      - {id: triple, when: 'true', value: n * 3}\n")
    ruleset = load_ruleset(root)
    assert engine.run(ruleset, "t.small", {"n": 2}).value == 9
    assert engine.run(ruleset, "t.bigger", {"n": 1}).value == 13


# -- a replaced rule keeps answering to its id ------------------------------------------------
def test_a_replaced_rule_answers_to_its_old_id(tree):
    root = variant(tree, "overrides:\n  t.one:\n    params: {bonus: 5}\nadopt: {t.one: true}\n",
                   {"x.yaml": "replaces: t.one\n" + TABLE.replace("id: t.one", "id: t.new")})
    found = collect(root)[1]
    assert [d.code for d in found] == ["MPR923"] and "v" in found[0].message
    ruleset = load_ruleset(root)
    assert engine.run(ruleset, "t.one", {"n": 4}).value == 7  # the override reached t.new
    assert ruleset.rule("t.one").id == "t.new" and ruleset.rule("t.new").replaced == {"t.one": "v"}
    with_param = load_ruleset(root, param_overrides={"t.one": {"bonus": 9}})
    assert engine.run(with_param, "t.new", {"n": 4}).value == 11


def test_a_document_based_on_another_leaves_the_base_as_it_was(tree):
    write(tree / "base", {"d.yaml": "id: t.d\nbased_on: t.one\ntitle: {en: D}\n"
                                    "inputs: {properties: {m: {type: integer}}}\nparams: {bonus: 5}\n"})
    ruleset = load_ruleset(tree / "base")
    base, derived = ruleset.rule("t.one"), ruleset.rule("t.d")
    assert ("inputs", "properties", "m") in derived.positions
    assert not any(path[:3] == ("inputs", "properties", "m") for path in base.positions)
    assert "m" not in base.doc["inputs"]["properties"] and base.params["bonus"] == 1
    assert derived.written_by("inputs", "properties", "n")[1].file.endswith("t.yaml")
    assert engine.run(ruleset, "t.d", {"n": 4}).value == 7
