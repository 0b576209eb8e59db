"""Findings of a folded table at the row that wrote them: a chain of layers adds and replaces
rows (rows of several shapes interleaved, as a real table's are), some of them wrong; each
finding of the schema, of the expressions and of the fold names the file and line of the row
(and the column of the value at fault). Also: a row written twice by one layer through two of
its overrides (the old and the new id of a replaced rule), in a chain and beside an independent
layer; rows named by a number or by a value that is not hashable."""
from __future__ import annotations

from pathlib import Path

import pytest
from ruleset_support import manifest, write

from interpreter.checks.loading import collect

BASE = """\
id: t.rows
kind: SumTable
source: R9
title: {{en: Rows}}
inputs: {{type: object, properties: {{n: {{type: integer}}, xs: {{type: array}}}}}}
rows:
{rows}
"""
BASE_FIRST_ROW = 7  # the line of the first row in BASE
FIRST_EDIT_LINE = 8  # the line of a layer's first edit in its manifest
GOOD = ["{id: g%d, when: n > %d, value: %d}", "{id: g%d, when: n > %d, value: 'n + %d'}",
        "{id: g%d, each: xs, as: x, when: x > %d, value: %d}"]


def good(layer: int, i: int) -> str:
    """A clean row, of one of three shapes (an integer value, an expression, a bound name)."""
    return GOOD[i % 3].replace("g%d", f"g{layer}_%d") % (i, i % 4, i % 3 + 1)


def chain(root: Path, layers: list[list[str]], base: int = 6) -> Path:
    """A base of ``base`` clean rows and one layer per list of row edits; the top layer's path."""
    write(root / "l0", {"ruleset.yaml": manifest("l0"),
                        "t.yaml": BASE.format(rows="\n".join(f"  - {good(0, i)}" for i in range(base)))})
    for number, edits in enumerate(layers, 1):
        body = "overrides:\n  t.rows:\n    rows:\n" + "".join(f"      - {e}\n" for e in edits)
        write(root / f"l{number}", {"ruleset.yaml": manifest(f"l{number}", f"extends: ../l{number - 1}\n" + body)})
    return root / f"l{len(layers)}"


def located(findings: list) -> set[tuple[str, str, int, int]]:
    return {(d.code, Path(d.file).parent.name, d.line, d.column) for d in findings
            if d.severity in ("error", "warning")}


# (a row edit, the findings it makes: code and the text its column points at)
ROWS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("clean", "{id: e0, when: n > 1, value: 1}", []),
    ("an expression that ends early", '{id: e1, when: "n >", value: 1}', [("MPR112", ">")]),
    ("an unknown name in a condition", "{id: e2, when: m > 1, value: 1}", [("MPR351", "m > 1")]),
    ("an unknown name in a value", "{id: e3, when: n > 1, value: 'q + 1'}", [("MPR351", "'q + 1'")]),
    ("a value of the wrong type", "{id: e4, when: n > 1, value: [1]}", [("MPR300", "[1]")]),
    ("an unknown field", "{id: e5, when: n > 1, value: 1, colour: red}", [("MPR303", "colour")]),
    ("an unknown parameter", "{id: e6, when: n > params.cap, value: 1}", [("MPR352", "cap")]),
    ("a bound name misspelt", "{id: e7, each: xs, as: x, when: y > 1, value: 1}", [("MPR351", "y > 1")]),
    ("an id the schema refuses", "{id: E8, when: n > 1, value: 1}", [("MPR306", "E8")]),
]


def column(edit: str, token: str) -> int:
    return len("      - ") + edit.index(token) + 1


@pytest.mark.parametrize("name,edit,found", ROWS, ids=[r[0] for r in ROWS])
def test_a_rows_findings_at_the_row_of_the_layer_that_wrote_it(tmp_path, name, edit, found):
    # l1 adds the row among clean rows of every shape; l2 writes it over a row of the base
    rows = [good(1, i) for i in range(7)]
    rows.insert(4, edit)
    over = edit.replace(edit[edit.index("id: ") + 4:edit.index(",")], "g0_2", 1)
    top = chain(tmp_path, [rows, [good(2, 0), over, good(2, 1)]])
    _, findings = collect(top)
    expected = {(code, "l1", FIRST_EDIT_LINE + 4, column(edit, token)) for code, token in found} | \
        {(code, "l2", FIRST_EDIT_LINE + 1, column(over, token)) for code, token in found
         if token in over}  # (the id at fault is not written over the base's row)
    assert located(findings) == expected


def test_every_wrong_row_at_once_each_at_its_line(tmp_path):
    # the same wrong texts twice (each place reported), rows of every shape between them
    edits: list[str] = []
    expected: set[tuple[str, str, int, int]] = set()
    for copy in range(2):
        for i, (_, edit, found) in enumerate(ROWS):
            edit = edit.replace("{id: e", f"{{id: c{copy}e").replace("E8", f"E{copy}")
            edits += [good(1, 10 * copy + i), edit]
            line = FIRST_EDIT_LINE + len(edits) - 1
            expected |= {(code, "l1", line, column(edit, token.replace("E8", f"E{copy}")))
                         for code, token in found}
    _, findings = collect(chain(tmp_path, [edits]))
    assert located(findings) == expected


def test_a_wrong_row_replaced_by_a_later_layer_is_not_reported(tmp_path):
    top = chain(tmp_path, [[good(1, 0), "{id: bad, when: m > 1, value: [1]}"],
                           ["{id: bad, when: n > 1, value: 1}", "{id: g1_0, when: z > 1, value: 1}"]])
    _, findings = collect(top)
    assert located(findings) == {("MPR351", "l2", FIRST_EDIT_LINE + 1, column("{id: g1_0, when: z > 1, value: 1}", "z > 1"))}


REPLACED = """\
id: t.new
replaces: t.rows
kind: SumTable
source: R9
title: {en: New}
inputs: {type: object, properties: {n: {type: integer}}}
rows:
  - {id: a, when: n > 1, value: 1}
  - {id: b, when: n > 2, value: 1}
"""
BOTH_IDS = """\
overrides:
  t.rows:
    rows:
      - {id: a, when: n > 2, value: 5}
      - {id: x, when: n > 2, value: 5}
  t.new:
    rows:
      - {id: a, when: n > 3, value: 6}
      - {id: b, remove: true}
      - {id: x, when: n > 2, value: 5}
      - {id: y, when: n > 2, value: 5}
      - {id: y, when: n > 2, value: 5}
"""


@pytest.mark.parametrize("independent", [False, True], ids=["chain", "beside an independent layer"])
def test_a_row_written_by_two_overrides_of_one_layer(tmp_path, independent):
    """The old id and the new id of a replaced rule reach one rule: a row both write is written
    twice by the layer (MPR903 at the second, naming the first), as a row written twice in one
    override is; whether or not the layers form a chain (the conflicts between layers are then
    looked for too)."""
    write(tmp_path / "base", {"ruleset.yaml": manifest("base"), "t.yaml": BASE.format(
        rows="  - {id: a, when: n > 1, value: 1}\n  - {id: b, when: n > 2, value: 1}")})
    write(tmp_path / "v", {"ruleset.yaml": manifest("v", "extends: ../base\n" + BOTH_IDS), "new.yaml": REPLACED})
    top = tmp_path / "v"
    if independent:
        write(tmp_path / "w", {"ruleset.yaml": manifest("w", "extends: ../base\n")})
        write(tmp_path / "top", {"ruleset.yaml": manifest("top", "extends: [../v, ../w]\n")})
        top = tmp_path / "top"
    ruleset, findings = collect(top)
    twice = sorted((d.line, d.message.rsplit(":", 2)[-2]) for d in findings if d.code == "MPR903")
    assert twice == [(12, "8"), (14, "9"), (16, "15")]
    assert [r["id"] for r in ruleset.rules["t.new"].doc["rows"]] == ["a", "x", "y"]
    assert ruleset.rules["t.new"].row_layers == {"a": "v", "x": "v", "y": "v"}


def test_rows_named_by_a_number_or_by_a_list(tmp_path):
    """An id the schema refuses (a number, a list) still names a row for the fold: a number by
    its text, a list (not hashable) names no row, so each such edit adds one; no internal error."""
    top = chain(tmp_path, [["{id: [1], when: n > 2, value: 5}", "{id: 5, when: n > 2, value: 5}"],
                           ["{id: [1], when: n > 3, value: 6}", "{id: 5, when: n > 3, value: 6}"]], base=1)
    ruleset, findings = collect(top)
    assert not [d for d in findings if d.code == "MPR000"]
    rows = ruleset.rules["t.rows"].doc["rows"]
    assert [(r["id"], r["value"]) for r in rows] == [("g0_0", 1), ([1], 5), (5, 6), ([1], 6)]
    assert ruleset.rules["t.rows"].row_layers == {"g0_0": "l0", "[1]": "l2", "5": "l2"}
    assert {(d.code, Path(d.file).parent.name, d.line) for d in findings if d.severity == "error"} == {
        ("MPR300", "l1", FIRST_EDIT_LINE), ("MPR300", "l2", FIRST_EDIT_LINE), ("MPR300", "l2", FIRST_EDIT_LINE + 1)}
