"""Ruleset loading: rule files of a directory, unique ids, parameters and their layers, adoption
switches (R0), extends with overrides, the content hash, and every finding reported at once."""
from __future__ import annotations

from pathlib import Path

import pytest
from ruleset_support import manifest, write

from interpreter.engine import runner as engine
from interpreter.checks.loading import collect, load_ruleset
from rules_dsl.dice import ScriptedDice
from rules_dsl.errors import MprError

TABLE = """\
id: {id}
kind: SumTable
source: R9
title: {{en: Table}}
inputs: {{type: object, properties: {{n: {{type: integer}}}}}}
params: {{bonus: 1, divisor: 2}}
rows:
  - {{when: n > 0, value: n / params.divisor}}
  - {{when: 'true', value: params.bonus}}
"""


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return write(tmp_path / "base", {
        "ruleset.yaml": manifest("base", "parameters:\n  clock: {dawn: '06:00', dusk: '18:00'}\n"),
        "tables.yaml": TABLE.format(id="t.one") + "---\n" + TABLE.format(id="t.two"),
    })


def test_loads_rules_params_and_layers(base):
    ruleset = load_ruleset(base)
    assert ruleset.id == "base" and set(ruleset.rules) == {"t.one", "t.two"}
    rule = ruleset.rule("t.one")
    assert rule.params == {"bonus": 1, "divisor": 2}
    assert rule.param_layers == {"bonus": "base", "divisor": "base"}
    assert rule.positions[("id",)][1:] == (1, 5)
    assert ruleset.parameters == {"clock": {"dawn": "06:00", "dusk": "18:00"}}
    assert engine.run(ruleset, "t.one", {"n": 4}).value == 3


def test_variant_overrides_adopts_and_replaces(base, tmp_path):
    variant = write(tmp_path / "variant", {
        "ruleset.yaml": manifest("variant", "extends: ../base\n"
                                 "parameters:\n  clock: {dawn: '05:00'}\n"
                                 "overrides:\n  t.one:\n    params: {bonus: 10}\n"
                                 "not_adopted: [t.two]\n"),
        "more.yaml": TABLE.format(id="t.three").replace("bonus: 1", "bonus: 7"),
    })
    ruleset = load_ruleset(variant)
    assert ruleset.layers == ["base", "variant"]
    one = ruleset.rule("t.one")
    assert one.params["bonus"] == 10 and one.param_layers == {"bonus": "variant", "divisor": "base"}
    assert one.positions[("params", "bonus")][0].endswith("variant/ruleset.yaml")
    assert ruleset.parameters["clock"] == {"dawn": "05:00", "dusk": "18:00"}
    assert engine.run(ruleset, "t.one", {"n": 0}).value == 10
    assert ruleset.rule("t.three").layer == "variant"
    with pytest.raises(MprError) as caught:
        engine.run(ruleset, "t.two", {"n": 1})
    assert caught.value.code == "MPR402"


def test_variant_file_replaces_a_document_by_id(base, tmp_path):
    variant = write(tmp_path / "variant", {
        "ruleset.yaml": manifest("variant", "extends: ../base\n"),
        "one.yaml": "replaces: t.one\n" + TABLE.format(id="t.one").replace("bonus: 1", "bonus: 5"),
    })
    rule = load_ruleset(variant).rule("t.one")
    assert rule.params["bonus"] == 5 and rule.layer == "variant"
    (variant / "one.yaml").write_text(TABLE.format(id="t.one"), encoding="utf-8")
    _, findings = collect(variant)
    assert [d.code for d in findings] == ["MPR900"]


def test_caller_overrides_and_adoption(base):
    ruleset = load_ruleset(base, param_overrides={"t.one": {"divisor": 4}}, adopt={"t.two": False})
    assert ruleset.rule("t.one").param_layers["divisor"] == "caller"  # the caller may name it
    assert engine.run(ruleset, "t.one", {"n": 8}).value == 3
    assert ruleset.rule("t.two").adopted is False


@pytest.mark.parametrize("overrides, adopt, code", [
    ({"t.onf": {"bonus": 2}}, None, "MPR411"),
    ({"t.one": {"bonsu": 2}}, None, "MPR412"),
    (None, {"t.three": False}, "MPR411"),
])
def test_caller_mistakes_are_findings(base, overrides, adopt, code):
    _, findings = collect(base, param_overrides=overrides, adopt=adopt)
    assert [d.code for d in findings if d.severity == "error"] == [code]
    with pytest.raises(MprError) as caught:
        load_ruleset(base, param_overrides=overrides, adopt=adopt)
    assert caught.value.code == "MPR406" and code in str(caught.value)


def test_duplicate_ids_name_both_places(tmp_path):
    root = write(tmp_path / "dup", {
        "ruleset.yaml": manifest("dup"),
        "a.yaml": TABLE.format(id="t.same"),
        "b.yaml": "# comment\n" + TABLE.format(id="t.same"),
    })
    _, findings = collect(root)
    (finding,) = [d for d in findings if d.code == "MPR408"]
    assert finding.file.endswith("b.yaml") and (finding.line, finding.column) == (2, 5)
    assert "a.yaml:1:5" in finding.message


def test_extends_cycle_and_missing(tmp_path):
    write(tmp_path, {"a/ruleset.yaml": manifest("a", "extends: ../b\n"),
                     "b/ruleset.yaml": manifest("b", "extends: ../a\n"),
                     "c/ruleset.yaml": manifest("c", "extends: magipunc\n")})
    _, findings = collect(tmp_path / "a")
    assert [d.code for d in findings] == ["MPR409"]
    assert "a -> b -> a" in findings[0].message
    _, findings = collect(tmp_path / "c")
    assert [d.code for d in findings] == ["MPR410"]
    assert "magipunk" in findings[0].message


def test_extends_a_bundled_ruleset_by_name(tmp_path):
    root = write(tmp_path / "v", {"ruleset.yaml": manifest("v", "extends: magipunk\n")})
    ruleset = load_ruleset(root)
    assert ruleset.layers[-1] == "v" and "procurement.rarity" in ruleset.rules


def test_content_hash_follows_the_files(base):
    first = load_ruleset(base).content_hash
    assert first == load_ruleset(base).content_hash and len(first) == 64
    (base / "tables.yaml").write_text(TABLE.format(id="t.one"), encoding="utf-8")
    assert load_ruleset(base).content_hash != first


def test_all_findings_at_once(tmp_path):
    root = write(tmp_path / "bad", {
        "ruleset.yaml": manifest("bad", "overrides:\n  t.nope: {params: {x: 1}}\n"),
        "a.yaml": TABLE.format(id="t.one").replace("n > 0", "m > 0"),
        "b.yaml": "id: t.two\nkind: SumTable\nsource: R9\ntitle: {en: x}\nrows: [{when: 'n >', value: 1}]\n",
    })
    _, findings = collect(root)
    codes = [d.code for d in findings]
    assert "MPR411" in codes and "MPR351" in codes and any(c.startswith("MPR11") for c in codes)
    assert findings == sorted(findings, key=lambda d: (d.file, d.line, d.column, d.code))


def test_not_a_ruleset(tmp_path):
    with pytest.raises(MprError) as caught:
        load_ruleset(tmp_path)
    assert caught.value.code == "MPR407" and caught.value.exit_code == 2  # the argument is wrong


ROLL = """\
id: t.roll
kind: RollTable
source: R16
title: {en: Roll}
inputs: {type: object, properties: {roll: {type: integer}}}
params: {roll: 2d6}
default: {id: other}
rows:
  - {roll: [2, 12], id: any}
"""


def test_variant_parameter_expression_is_checked_and_used(base, tmp_path):
    (base / "roll.yaml").write_text(ROLL, encoding="utf-8")
    variant = write(tmp_path / "variant", {
        "ruleset.yaml": manifest("variant", "extends: ../base\n"
                                 "overrides:\n  t.roll:\n    params: {roll: 1d20}\n")})
    ruleset = load_ruleset(variant)
    assert ruleset.rule("t.roll").params["roll"] == "1d20"
    value = engine.run(ruleset, "t.roll", {}, ScriptedDice([17])).value
    assert value == {"roll": 17, "id": "other", "text": None, "value": None}
    broken = write(tmp_path / "broken", {
        "ruleset.yaml": manifest("broken", "extends: ../base\n"
                                 "overrides:\n  t.roll:\n    params: {roll: 2d6 +}\n")})
    _, findings = collect(broken)
    (finding,) = findings
    assert finding.code == "MPR112" and finding.file.endswith("broken/ruleset.yaml")
    assert (finding.line, finding.column) == (7, 25)


def test_manifest_files_globs(tmp_path):
    root = write(tmp_path / "g", {
        "ruleset.yaml": manifest("g", "files: ['rules/*.yaml']\n"),
        "rules/a.yaml": TABLE.format(id="t.a"),
        "ignored.yaml": TABLE.format(id="t.ignored"),
    })
    assert set(load_ruleset(root).rules) == {"t.a"}


def test_a_rule_s_compiled_expressions_are_no_part_of_its_value() -> None:
    """Two loads of the same rule are equal whether or not one has compiled its expressions yet
    (``_compiled`` is a cache: diff and the ruleset cache's checks compare rules)."""
    first, second = load_ruleset(None).rule("procurement.rarity"), load_ruleset(None).rule("procurement.rarity")
    first.expression("rows", 0, "when")
    assert first._compiled and not second._compiled
    assert first == second
