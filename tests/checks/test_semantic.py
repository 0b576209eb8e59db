"""Semantic checks: the broken-document corpus (each file's first finding, exactly located), roll
table coverage against the exact dice range, sum table conditions, names in expressions."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.checks.loading import collect
from interpreter.checks.annotations import annotated_paths, kind_schema_file
from interpreter.checks.validation import validate_paths

BROKEN = Path(__file__).parents[1] / "broken"
EXPECTED = yaml.safe_load((BROKEN / "expected_semantic.yaml").read_text(encoding="utf-8"))


def _rel(file: str) -> str:
    return Path(file).resolve().relative_to(BROKEN.resolve()).as_posix()


@pytest.mark.parametrize("target", sorted(EXPECTED))
def test_corpus_first_finding(target, monkeypatch):
    monkeypatch.chdir(BROKEN.parent.parent)
    expected = EXPECTED[target]
    findings = [d for d in validate_paths([str(BROKEN / target)])
                if d.severity in ("error", "warning")]
    assert findings, f"{target}: no finding"
    first = findings[0]
    assert (first.code, first.line, first.column) == \
        (expected["code"], expected["line"], expected["column"]), first
    assert _rel(first.file) == expected.get("at", target)


# Each way a roll table can miss the dice range, with the finding that names it.
ROLL_TABLE_FINDINGS = {"MPR370": "roll_gap.yaml", "MPR371": "roll_overlap.yaml", "MPR372": "roll_unreachable.yaml",
                       "MPR373": "roll_outside_range.yaml", "MPR374": "roll_reversed.yaml",
                       "MPR375": "roll_not_whole.yaml"}


def test_every_corpus_file_has_its_own_finding():
    """Every broken file on disk is listed with the finding it must give, no two files test the
    same check, and each roll-table finding has its own broken table."""
    on_disk = {p.relative_to(BROKEN).as_posix() for p in (BROKEN / "semantic").iterdir()}
    semantic = {k: v for k, v in EXPECTED.items() if k.startswith("semantic/")}
    assert on_disk == set(semantic)
    codes = [v["code"] for v in semantic.values()]
    assert len(codes) == len(set(codes))
    assert {code: target.removeprefix("semantic/") for target, v in semantic.items()
            if (code := v["code"]) in ROLL_TABLE_FINDINGS} == ROLL_TABLE_FINDINGS


DOC = """\
id: t.table
kind: RollTable
source: R16
title: {{en: T}}
params: {{roll: '{roll}'}}
{extra}rows:
{rows}
"""


def roll_findings(tmp_path: Path, roll: str, rows: list[str], extra: str = "") -> list[tuple]:
    path = tmp_path / "t.yaml"
    path.write_text(DOC.format(roll=roll, extra=extra, rows="\n".join(f"  - {r}" for r in rows)),
                    encoding="utf-8")
    _, findings = collect(path)
    return [(d.code, d.line) for d in findings]


@pytest.mark.parametrize("roll, rows, extra, expected", [
    ("2d6", ["{roll: [2, 12]}"], "", []),
    ("2d6", ["{roll: [2, 6]}", "{roll: [8, 12]}"], "", [("MPR370", 7)]),
    ("2d6", ["{roll: [2, 6]}"], "default: {id: other}\n", []),
    ("1d6", ["{roll: [1, 4]}", "{roll: [4, 6]}"], "", [("MPR371", 8)]),
    ("1d6", ["{roll: [1, 6]}", "{roll: 7}"], "", [("MPR372", 8)]),
    ("1d6", ["{roll: [1, 6]}", "{roll: 7}"], "range: [1, 8]\n", [("MPR370", 8)]),
    ("1d6", ["{roll: [1, 6]}", "{roll: 9}"], "range: [1, 8]\ndefault: {id: x}\n",
     [("MPR373", 10)]),
    ("1d6", ["{roll: [6, 1]}"], "", [("MPR370", 7), ("MPR374", 7)]),
    ("d66", ["{roll: [11, 66]}"], "", []),
    ("d66", ["{roll: [11, 16]}", "{roll: [21, 26]}", "{roll: [31, 36]}", "{roll: [41, 46]}",
             "{roll: [51, 56]}", "{roll: [61, 66]}"], "", []),
    ("1d6 + 1d6 * 0", ["{roll: [1, 6]}"], "", []),
    ("2d6 / 2", ["{roll: [1, 6]}"], "", [("MPR375", 5)]),
])
def test_roll_table_coverage(tmp_path, roll, rows, extra, expected):
    assert roll_findings(tmp_path, roll, rows, extra) == expected


SUM = """\
id: t.sum
kind: SumTable
source: R9
title: {{en: S}}
inputs:
  type: object
  properties:
    item:
      type: object
      properties:
        quality: {{enum: [標準, 傑作]}}
        tags: {{type: array, items: {{enum: [a, b]}}}}
      additionalProperties: false
    n: {{type: integer}}
params: {{divisor: 2, names: [a]}}
rows:
  - when: {when}
    value: {value}
"""


@pytest.mark.parametrize("when, value, expected", [
    ("item.quality == '傑作'", "1", []),
    ("item.quality == '傑做'", "1", ["MPR355"]),
    ("item.quality in ['標準', '標凖']", "1", ["MPR355"]),
    ("n > 0 and 'c' in item.tags", "1", ["MPR355"]),
    ("n > 0 and 'a' in item.tags", "n // params.divisor", []),
    ("n > 0", "n // params.divisr", ["MPR352"]),
    ("m > 0", "1", ["MPR351"]),
    ("item.grade == 1", "1", ["MPR353"]),
    ("1 > 2", "1", ["MPR360"]),
    ("item.quality == '標準' and n > 0 and item.quality == '傑作'", "1", ["MPR360"]),
    ("n == 1 and 1 == n", "1", []),
    ("n == 1 or n == 2", "1", []),
    ("n == 1 and n == 2d6", "1", []),
    ("n >", "1", ["MPR112"]),
    ("n > 0", "2d6 +", ["MPR112"]),
    ("n > 5 and n < 3", "1", ["MPR360"]),
    ("n > 3 and n < 3", "1", ["MPR360"]),
    ("n >= 3 and n <= 3", "1", []),
    ("n >= 3 and n < 3", "1", ["MPR360"]),
    ("n == 2 and n >= 4", "1", ["MPR360"]),
    ("5 < n and n < 6", "1", []),
    ("6 < n and n < 6", "1", ["MPR360"]),
    ("4 <= n < 2", "1", ["MPR360"]),
    ("1 <= n < 6 and n > 2", "1", []),
    ("n > 5 or n < 3", "1", []),
    ("n > 5 and n + 1 < 3", "1", []),
    ("n > 2d6 and n < 2", "1", []),
    ("item.quality == '傑做' and n > 2 and n < 1", "1", ["MPR360", "MPR355"]),
])
def test_sum_table_expressions(tmp_path, when, value, expected):
    path = tmp_path / "s.yaml"
    path.write_text(SUM.format(when=when, value=value), encoding="utf-8")
    _, findings = collect(path)
    assert [d.code for d in findings] == expected


def test_expressions_are_found_through_the_kind_schema():
    rule = {"params": {"roll": "2d6"}, "rows": [{"roll": 2}], "range": [1, 2]}
    file = kind_schema_file("RollTable")
    from interpreter.checks.annotations import schema_file as _schema_file

    assert [p for p, _, _ in annotated_paths(rule, _schema_file(file), file, "x-expression")] \
        == [("params", "roll")]
    rows = {"rows": [{"when": "x", "value": 1}, {"each": "xs", "as": "m", "when": "m", "value": "m"}]}
    file = kind_schema_file("SumTable")
    found = list(annotated_paths(rows, _schema_file(file), file, "x-expression"))
    assert [(p, sorted(b)) for p, _, b in found] == [
        (("rows", 0, "when"), []), (("rows", 1, "each"), ["m"]), (("rows", 1, "when"), ["m"]),
        (("rows", 1, "value"), ["m"])]


def test_messages_in_japanese(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(DOC.format(roll="2d6", extra="", rows="  - {roll: [2, 6]}"), encoding="utf-8")
    _, findings = collect(path, "ja")
    assert findings[0].code == "MPR370" and "到達しうる出目 7-12" in findings[0].message


def test_whole_corpus_gives_findings_and_no_crash(capsys, monkeypatch):
    from interpreter.cli import main

    monkeypatch.chdir(BROKEN.parent.parent)
    assert main(["validate", "tests/broken", "--format", "json"]) == 1
    assert "MPR000" not in capsys.readouterr().out


PROCUREMENT = (Path(__file__).parents[2] / "rulesets" / "magipunk" / "procurement.yaml") \
    .read_text(encoding="utf-8").splitlines(keepends=True)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(PROCUREMENT) - 1), min_size=1, max_size=3),
       st.sampled_from(["", "x", ":", "  - ", "'", "params.", "(", "9"]))
def test_mangled_rule_files_give_findings_not_tracebacks(tmp_path_factory, lines, junk):
    text = list(PROCUREMENT)
    for index in lines:
        text[index] = text[index].rstrip("\n")[: len(text[index]) // 2] + junk + "\n"
    path = tmp_path_factory.mktemp("mangled") / "procurement.yaml"
    path.write_text("".join(text), encoding="utf-8")
    _, findings = collect(path)
    assert all(d.code != "MPR000" and d.line is not None for d in findings)


EVENTS = """\
id: t.events
kind: RollTable
source: R16
title: {en: Events}
inputs: {type: object, properties: {roll: {type: integer}}, additionalProperties: false}
params: {roll: 2d6}
range: [2, 13]
default: {id: individual}
rows:
  - {roll: 2, id: disaster}
  - {roll: [3, 4], id: theft}
  - {roll: 6, id: disaster}
  - {roll: 13, id: eviction}
"""


@pytest.mark.parametrize("roll, event", [(2, "disaster"), (4, "theft"), (5, "individual"),
                                         (6, "disaster"), (13, "eviction")])
def test_roll_table_rows_and_events(tmp_path, roll, event):
    from interpreter.engine import runner as engine

    path = tmp_path / "events.yaml"
    path.write_text(EVENTS, encoding="utf-8")
    ruleset, findings = collect(path)
    assert findings == []
    assert engine.run(ruleset, "t.events", {"roll": roll}).value["id"] == event
    by_roll, by_event = engine.distribution(ruleset, "t.events")
    events = {row.value: row.p for row in by_event.rows}
    from fractions import Fraction

    assert events == {"disaster": Fraction(1 + 5, 36), "theft": Fraction(2 + 3, 36),
                      "individual": Fraction(36 - 11, 36)}
    assert by_roll.mean == 7 and sum(row.p for row in by_roll.rows) == 1


def test_roll_outside_the_table_is_refused(tmp_path):
    from interpreter.engine import runner as engine
    from rules_dsl.errors import MprError

    path = tmp_path / "events.yaml"
    path.write_text(EVENTS, encoding="utf-8")
    ruleset, _ = collect(path)
    with pytest.raises(MprError) as caught:
        engine.run(ruleset, "t.events", {"roll": 14})
    assert caught.value.code == "MPR514"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["==", "<", "<=", ">", ">="]), st.integers(-4, 4)),
                min_size=1, max_size=4))
def test_a_contradiction_is_never_satisfiable(parts):
    """Sound: when the check says the conjunction never holds, no number (halves included) does."""
    from fractions import Fraction

    from interpreter.kinds.sum_table import _contradiction
    from rules_dsl import compile_expression

    text = " and ".join(f"n {op} {k}" for op, k in parts)
    expression = compile_expression(text)
    satisfiable = any(expression.evaluate({"n": Fraction(half, 2)}) for half in range(-12, 13))
    if _contradiction(expression.ast):
        assert not satisfiable, text
    else:
        assert satisfiable, text  # complete too, for comparisons with numbers only


SCHEMA_DOC = """\
id: t.schema
kind: SumTable
source: house
title: {{en: T}}
{fields}
rows:
  - {{when: n >= 1, value: 1}}
"""


@pytest.mark.parametrize("fields, expected", [
    # every keyword known, annotations x-* and markdownDescription included: nothing
    ("inputs: {type: object, properties: {n: {type: integer, minimum: 0, x-note: a,"
     " markdownDescription: b}}, required: [n], $defs: {d: {type: string}}}", []),
    # a misspelt keyword at the top, in a property, in a list of schemas, in $defs
    ("inputs: {type: object, properties: {n: {type: integer}}, requried: [n]}",
     [("MPR060", 5, 58, "required")]),
    ("inputs: {type: object, properties: {n: {type: integer, minimun: 0}}}",
     [("MPR060", 5, 56, "minimum")]),
    ("inputs: {type: object, properties: {n: {anyOf: [{type: integer}, {maxLenght: 3}]}}}",
     [("MPR060", 5, 67, "maxLength")]),
    ("inputs: {type: object, properties: {n: {type: integer}}, $defs: {d: {tpye: string}}}",
     [("MPR060", 5, 70, "type")]),
    # a property named like a misspelt keyword is a name, not a keyword
    ("inputs: {type: object, properties: {requried: {type: integer}, n: {type: integer}}}", []),
    # enum, const, default and examples hold data, not schemas
    ("inputs: {type: object, properties: {n: {type: integer, default: 1,"
     " examples: [{requried: 1}]}}}", []),
    # a parameter's own schema
    ("inputs: {type: object, properties: {n: {type: integer}}}\nparams: {cap: 3}\n"
     "param_schema: {cap: {type: integer, maximun: 9}}",
     [("MPR060", 7, 37, "maximum")]),
])
def test_unknown_schema_keywords(tmp_path, fields, expected):
    path = tmp_path / "t.yaml"
    path.write_text(SCHEMA_DOC.format(fields=fields), encoding="utf-8")
    _, findings = collect(path)
    found = [(d.code, d.line, d.column, d.message.rsplit("'", 2)[-2]) for d in findings
             if d.code == "MPR060"]
    assert found == expected
    assert all(d.severity == "warning" for d in findings if d.code == "MPR060")
