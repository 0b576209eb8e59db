"""Variant merge semantics (interpreter.ruleset.variants): parameters, rows, whole documents, new rules,
adoption, examples, layer conflicts, cycles and unknown ids, each case a table row."""
from __future__ import annotations

from pathlib import Path

import pytest
from ruleset_support import manifest, write

from interpreter.engine import runner as engine
from interpreter.checks.examples import run_examples
from interpreter.documents.resources import rulesets_dir
from interpreter.checks.loading import collect, load_ruleset
from rules_dsl.dice import ScriptedDice

TABLE = """\
id: {id}
kind: SumTable
source: R9
title: {{en: Table}}
inputs: {{type: object, properties: {{n: {{type: integer}}}}}}
params: {{bonus: 1, divisor: 2}}
rows:
  - {{id: half, when: n > 0, value: n / params.divisor}}
  - {{id: bonus, when: 'true', value: params.bonus}}
  - {{when: n > 10, value: 100}}
examples:
  - {{name: four, input: {{n: 4}}, expect: 3}}
"""
ROLL = """\
id: t.roll
kind: RollTable
source: R16
title: {en: Roll}
inputs: {type: object, properties: {roll: {type: integer}}}
params: {roll: 1d6}
rows:
  - {roll: [1, 2], id: low}
  - {roll: [3, 4], id: mid}
  - {roll: 5, id: high}
  - {roll: 6, id: high}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "base", {"ruleset.yaml": manifest("base", "parameters:\n  clock: {dawn: '06:00'}\n"),
                              "t.yaml": TABLE.format(id="t.one") + "---\n" + TABLE.format(id="t.two"),
                              "roll.yaml": ROLL})
    return tmp_path


def variant(tree: Path, name: str, extra: str, files: dict[str, str] | None = None,
            extends: str = "../base") -> Path:
    head = f"extends: {extends}\n" if extends else ""
    return write(tree / name, {"ruleset.yaml": manifest(name, head + extra), **(files or {})})


def errors(root: Path) -> list[str]:
    return [d.code for d in collect(root)[1] if d.severity == "error"]


# -- each kind of override: (manifest text, extra files, rule, n, expected value) --------------
OVERRIDES = [
    ("params replace by name", "overrides:\n  t.one:\n    params: {bonus: 10}\n", {}, "t.one", 4, 12),
    ("row replaced by id", "overrides:\n  t.one:\n    rows:\n      - {id: bonus, when: 'n > 3', value: 5}\n",
     {}, "t.one", 4, 7),
    ("row added with a new id", "overrides:\n  t.one:\n    rows:\n      - {id: extra, when: 'true', value: 20}\n",
     {}, "t.one", 4, 23),
    ("row without id replaced by at", "overrides:\n  t.one:\n    rows:\n      - {at: 3, when: n > 3, value: 50}\n",
     {}, "t.one", 4, 53),
    ("row removed by id", "overrides:\n  t.one:\n    rows:\n      - {id: bonus, remove: true}\n",
     {}, "t.one", 4, 2),
    ("row removed by at", "overrides:\n  t.one:\n    rows:\n      - {at: 3, remove: true}\n",
     {}, "t.one", 12, 7),
    ("document replaced with replaces", "", {"one.yaml": "replaces: t.one\n" + TABLE.format(id="t.one")
                                            .replace("bonus: 1,", "bonus: 30,")}, "t.one", 4, 32),
    ("new rule added", "", {"new.yaml": TABLE.format(id="t.new")}, "t.new", 2, 2),
]


@pytest.mark.parametrize("name, extra, files, rule, n, value", OVERRIDES, ids=[o[0] for o in OVERRIDES])
def test_each_kind_of_override(tree, name, extra, files, rule, n, value):
    ruleset = load_ruleset(variant(tree, "v", extra, files))
    assert engine.run(ruleset, rule, {"n": n}).value == value
    assert engine.run(load_ruleset(tree / "base"), "t.one", {"n": 4}).value == 3


def test_layers_of_parameters_and_rows_in_the_trace(tree):
    root = variant(tree, "v", "overrides:\n  t.one:\n    params: {bonus: 10}\n    rows:\n"
                              "      - {id: extra, when: 'true', value: 20}\n")
    rule = load_ruleset(root).rule("t.one")
    assert rule.param_layers == {"bonus": "v", "divisor": "base"}
    assert rule.row_layers == {"half": "base", "bonus": "base", "#3": "base", "extra": "v"}
    result = engine.run(load_ruleset(root), "t.one", {"n": 4})
    steps = result.trace[0].children
    assert {s.label: s.detail.get("layer") for s in steps if s.kind == "row"} == rule.row_layers
    params = [s for s in result.trace[0].children[1].children if s.kind == "param"]
    assert [(s.label, s.detail["layer"]) for s in params] == [("t.one.bonus", "v")]
    assert rule.positions[("rows", 3, "when")][0].endswith("v/ruleset.yaml")


def test_a_bad_added_row_is_located_in_the_variant(tree):
    root = variant(tree, "v", "overrides:\n  t.one:\n    rows:\n      - {id: extra, when: 'n >', value: 1}\n")
    (finding,) = [d for d in collect(root)[1] if d.severity == "error"]
    assert finding.code.startswith("MPR1") and finding.file.endswith("v/ruleset.yaml")
    assert (finding.line, finding.column) == (8, 30)


def test_adoption_and_ruleset_parameters(tree):
    root = variant(tree, "v", "parameters:\n  clock: {dusk: '18:00'}\nnot_adopted: [t.two]\n")
    ruleset = load_ruleset(root)
    assert ruleset.parameters == {"clock": {"dawn": "06:00", "dusk": "18:00"}}
    assert not ruleset.rule("t.two").adopted and ruleset.rule("t.one").adopted


# -- findings: (manifest text, extra files, codes) ------------------------------------------
FINDINGS = [
    ("override of an unknown rule", "overrides:\n  t.onf: {params: {bonus: 2}}\n", {}, ["MPR411"]),
    ("override of an unknown parameter", "overrides:\n  t.one: {params: {bonsu: 2}}\n", {}, ["MPR412"]),
    ("not adopting an unknown rule", "not_adopted: [t.nine]\n", {}, ["MPR411"]),
    ("a document with an existing id and no replaces", "", {"one.yaml": TABLE.format(id="t.one")}, ["MPR900"]),
    ("replaces names no rule", "", {"x.yaml": "replaces: t.nope\n" + TABLE.format(id="t.nope")}, ["MPR901"]),
    ("adopted and not adopted by the same layer", "adopt: {t.one: true}\nnot_adopted: [t.one]\n", {}, ["MPR903"]),
    ("the same row twice in one layer",
     "overrides:\n  t.one:\n    rows:\n      - {id: x, when: 'true', value: 1}\n      - {id: x, when: 'true', value: 2}\n",
     {}, ["MPR903"]),
    ("a row at a position that does not exist", "overrides:\n  t.one:\n    rows:\n      - {at: 9, remove: true}\n",
     {}, ["MPR904"]),
    ("removing a row id that does not exist", "overrides:\n  t.one:\n    rows:\n      - {id: bonsu, remove: true}\n",
     {}, ["MPR904"]),
    ("an id several rows share", "overrides:\n  t.roll:\n    rows:\n      - {id: high, roll: 6}\n", {}, ["MPR905"]),
    ("a row override without id or at", "overrides:\n  t.one:\n    rows:\n      - {when: 'true', value: 1}\n",
     {}, ["MPR907"]),
]


@pytest.mark.parametrize("name, extra, files, codes", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_findings(tree, name, extra, files, codes):
    assert errors(variant(tree, "v", extra, files)) == codes


def test_rows_of_a_kind_without_rows(tree):
    write(tree / "base", {"pkg.yaml": "id: t.pkg\nkind: Package\npackage: rest\nsource: R4\n"
                                      "title: {en: P}\nparams: {duration_minutes: 10, effects: []}\n"})
    root = variant(tree, "v", "overrides:\n  t.pkg:\n    rows:\n      - {id: a}\n")
    assert "MPR906" in errors(root)


def test_replaces_under_a_new_id_keeps_answering_to_the_old_one(tree):
    root = variant(tree, "v", "", {"x.yaml": "replaces: t.two\n" + TABLE.format(id="t.twin")})
    ruleset = load_ruleset(root)
    assert list(ruleset.rules).count("t.twin") == 1 and "t.two" not in list(ruleset.rules)
    assert ruleset.rule("t.two") is ruleset.rule("t.twin") and ruleset.rule("t.twin").layer == "v"
    assert ruleset.rule("t.twin").replaced == {"t.two": "v"}
    assert [d.code for d in collect(root)[1]] == ["MPR923"]


# -- layer graphs: conflicts between independent layers, diamonds, cycles -------------------
def siblings(tree: Path, a: str, b: str, child: str = "") -> Path:
    variant(tree, "a", a)
    variant(tree, "b", b)
    return variant(tree, "c", child, extends="[../a, ../b]")


@pytest.mark.parametrize("a, b, child, codes", [
    ("overrides:\n  t.one: {params: {bonus: 2}}\n", "overrides:\n  t.one: {params: {bonus: 3}}\n", "", ["MPR902"]),
    ("overrides:\n  t.one: {params: {bonus: 2}}\n", "overrides:\n  t.one: {params: {bonus: 2}}\n", "", []),
    ("overrides:\n  t.one: {params: {bonus: 2}}\n", "overrides:\n  t.one: {params: {bonus: 3}}\n",
     "overrides:\n  t.one: {params: {bonus: 4}}\n", []),
    ("overrides:\n  t.one: {params: {bonus: 2}}\n", "overrides:\n  t.one: {params: {divisor: 3}}\n", "", []),
    ("parameters:\n  clock: {dawn: '05:00'}\n", "parameters:\n  clock: {dawn: '07:00'}\n", "", ["MPR902"]),
    ("not_adopted: [t.two]\n", "adopt: {t.two: true}\n", "", ["MPR902"]),
    ("overrides:\n  t.one:\n    rows:\n      - {id: bonus, remove: true}\n",
     "overrides:\n  t.one:\n    rows:\n      - {id: bonus, when: 'true', value: 9}\n", "", ["MPR902"]),
], ids=["same param", "same value", "resolved by the child", "different params", "ruleset parameter",
        "adoption", "row"])
def test_conflicts_between_independent_layers(tree, a, b, child, codes):
    assert errors(siblings(tree, a, b, child)) == codes


def test_a_replaced_document_conflicts_with_a_sibling_override(tree):
    variant(tree, "a", "", {"one.yaml": "replaces: t.one\n" + TABLE.format(id="t.one")})
    variant(tree, "b", "overrides:\n  t.one: {params: {bonus: 3}}\n")
    assert errors(variant(tree, "c", "", extends="[../a, ../b]")) == ["MPR902"]


def test_variants_extend_variants_and_diamonds_merge_once(tree):
    root = siblings(tree, "overrides:\n  t.one: {params: {bonus: 2}}\n",
                    "overrides:\n  t.one: {params: {divisor: 4}}\n")
    ruleset = load_ruleset(root)
    assert ruleset.layers == ["base", "a", "b", "c"]
    assert ruleset.rule("t.one").param_layers == {"bonus": "a", "divisor": "b"}
    chain = variant(tree, "d", "overrides:\n  t.one: {params: {bonus: 5}}\n", extends="../c")
    assert load_ruleset(chain).rule("t.one").params == {"bonus": 5, "divisor": 4}


@pytest.mark.parametrize("graph, chain", [
    ({"a": "../b", "b": "../a"}, "a -> b -> a"),
    ({"a": "../a"}, "a -> a"),
    ({"a": "[../base, ../b]", "b": "../c", "c": "../a"}, "a -> b -> c -> a"),
])
def test_cycles_are_errors(tree, graph, chain):
    for name, extends in graph.items():
        variant(tree, name, "", extends=extends)
    findings = collect(tree / "a")[1]
    assert [d.code for d in findings] == ["MPR409"] and chain in findings[0].message


def test_missing_parent_is_a_finding(tree):
    assert errors(variant(tree, "v", "", extends="[../base, ../nowhere]")) == ["MPR410"]


# -- examples: earlier ones are pinned to their layer's values, or give way when rows change --
def test_earlier_examples_keep_their_values(tree):
    root = variant(tree, "v", "overrides:\n  t.one:\n    params: {bonus: 10}\n    examples:\n"
                              "      - {name: ten, input: {n: 4}, expect: 12}\n")
    rule = load_ruleset(root).rule("t.one")
    assert [e.get("params") for e in rule.doc["examples"]] == [{"bonus": 1}, None]
    assert all(o.passed for o in run_examples(load_ruleset(root)))


def test_changed_rows_drop_the_earlier_examples(tree):
    root = variant(tree, "v", "overrides:\n  t.one:\n    rows:\n      - {id: bonus, when: 'true', value: 7}\n"
                              "    examples:\n      - {name: seven, input: {n: 4}, expect: 9}\n")
    rule = load_ruleset(root).rule("t.one")
    assert [e["name"] for e in rule.doc["examples"]] == ["seven"]
    assert rule.loc("examples", 0).file.endswith("v/ruleset.yaml")


@pytest.mark.parametrize("name", ["long_rest_sleep", "strict_procurement", "briefing_options", "safer_city"])
def test_example_variants_pass_their_examples(name):
    ruleset = load_ruleset(rulesets_dir() / "examples" / name)
    outcomes = run_examples(ruleset)
    assert outcomes and all(o.passed for o in outcomes), [o.diff for o in outcomes if not o.passed]
    assert ruleset.layers == ["magipunk", name]


def test_long_rest_sleep_values():
    ruleset = load_ruleset(rulesets_dir() / "examples" / "long_rest_sleep")
    assert ruleset.rule("circulation.sleep").params["min_sleep_hours"] == 4
    assert ruleset.rule("rest.long").params["effects"] == [{"effect": "sleep", "hours": 8}]
    value = engine.run(ruleset, "rest.long", {}, ScriptedDice([])).value
    assert value["effects"] == [{"effect": "sleep", "hours": 8}]


# -- campaign adoption: a campaign pins a variant with its own switches -----------------------
def test_a_campaign_pins_a_variant_with_adoption_and_parameters(tmp_path, capsys):
    import json

    import yaml

    from interpreter.campaign.store import Store
    from interpreter.cli import main

    root = write(tmp_path / "sleepy", {
        "ruleset.yaml": (rulesets_dir() / "examples" / "long_rest_sleep" / "ruleset.yaml")
        .read_text(encoding="utf-8").replace("id: long_rest_sleep", "id: sleepy")})
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump({"characters": [{"id": "alice", "hand_size": 2}]}), encoding="utf-8")
    path = str(tmp_path / "c.db")
    assert main(["campaign", "init", path, "--characters", str(chars), "--ruleset", str(root),
                 "--seed", "1", "--no-adopt", "circulation.dawn",
                 "--param", "circulation.sleep.min_sleep_hours=6"]) == 0
    capsys.readouterr()
    assert main(["campaign", "show", path, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["ruleset"]
    assert shown == {"path": str(root), "adopt": {"circulation.dawn": False},
                     "param_overrides": {"circulation.sleep": {"min_sleep_hours": 6}}}
    with Store.open(path) as store:
        pin = store.load().pin
    assert pin.rules["circulation.dawn"]["adopted"] is False
    assert pin.rules["circulation.sleep"]["params"]["min_sleep_hours"] == 6
    assert pin.rules["rest.long"]["params"]["effects"] == [{"effect": "sleep", "hours": 8}]
    assert main(["campaign", "sleep", path, "alice", "--hours", "5", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["changes"] == []  # 6 hours needed in this campaign
    assert main(["campaign", "rest", path, "long", "--format", "json"]) == 0
    (change,) = json.loads(capsys.readouterr().out)["changes"]  # the variant's long rest sleeps 8
    assert change["holder"] == "alice" and len(change["in"]) == 2
    assert main(["campaign", "init", path, "--force", "--characters", str(chars), "--ruleset",
                 str(root), "--adopt", "rest.long=yes", "--no-adopt", "rest.long"]) == 2
    assert main(["campaign", "init", path, "--force", "--characters", str(chars), "--ruleset",
                 str(root), "--no-adopt", "rest.lng"]) == 1
    assert "MPR411" in capsys.readouterr().err


# -- property: along a chain of variants the last writer of each parameter wins ---------------
def test_last_writer_wins_along_a_chain(tmp_path_factory):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    writes = st.lists(st.dictionaries(st.sampled_from(["bonus", "divisor"]), st.integers(1, 9)),
                      min_size=1, max_size=4)

    @settings(max_examples=15, deadline=None)
    @given(writes)
    def check(layers):
        tree = tmp_path_factory.mktemp("chain")
        write(tree / "base", {"ruleset.yaml": manifest("base"), "t.yaml": TABLE.format(id="t.one")})
        parent = "../base"
        expected, origin = {"bonus": 1, "divisor": 2}, {"bonus": "base", "divisor": "base"}
        for index, params in enumerate(layers):
            name = f"l{index}"
            body = "".join(f"      {k}: {v}\n" for k, v in params.items())
            variant(tree, name, "overrides:\n  t.one:\n    params:\n" + body if params else "", extends=parent)
            expected.update(params)
            origin.update({k: name for k in params})
            parent = f"../{name}"
        rule = load_ruleset(tree / f"l{len(layers) - 1}").rule("t.one")
        assert rule.params == expected and rule.param_layers == origin
        assert rule.doc["examples"][0].get("params", {}) == {
            k: v for k, v in {"bonus": 1, "divisor": 2}.items() if origin[k] != "base"}

    check()
