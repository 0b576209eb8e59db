"""Row edits of many layers folded in one pass (interpreter.ruleset.merge.Table) against a plain
reference fold written here: the list re-made at every layer, placements resolved at the end of
each layer, as the merge rule of docs/variants.md says. Random edit scripts over several layers
(seeded, so a failure repeats) and a table of error cases; each compares the rows in order, the
layer of each row, the file and line of every row and of every finding, and the findings' codes."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from ruleset_support import manifest, write

from interpreter.checks.loading import collect

BASE = """\
id: t.rows
kind: SumTable
source: R9
title: {{en: Rows}}
inputs: {{type: object, properties: {{n: {{type: integer}}}}}}
rows:
{rows}
"""
BASE_FIRST_ROW = 7  # the line of the first row in BASE
RULE = "t.rows"
FOLD_CODES = {"MPR903", "MPR904", "MPR905", "MPR907", "MPR916", "MPR917", "MPR918"}


# -- the reference: a list of rows, re-made at every layer -------------------------------------

class Row:
    def __init__(self, data: dict, layer: str, file: str, line: int) -> None:
        self.data, self.layer, self.file, self.line = data, layer, file, line


def reference(base: list[dict], layers: list[tuple[str, list[dict]]]
              ) -> tuple[list[Row], set[tuple[str, str, int]]]:
    """The rows after every layer's edits and the findings (code, file, line)."""
    rows = [Row(data, "l0", "l0/t.yaml", BASE_FIRST_ROW + i) for i, data in enumerate(base)]
    found: set[tuple[str, str, int]] = set()
    for layer, entries in layers:
        file = f"{layer}/ruleset.yaml"
        slots: list[Row | None] = list(rows)  # the list as it stood before this layer
        count = len(slots)
        written: set[str] = set()
        around: dict[int, tuple[list[int], list[int]]] = {}  # slot -> (placed before, after)
        placed: set[int] = set()

        def standing(name: object, slots: list[Row | None] = slots) -> list[int]:
            return [i for i, s in enumerate(slots) if s is not None and s.data.get("id") == name]

        for index, entry in enumerate(entries):
            line = FIRST_EDIT_LINE + index
            where = [w for w in ("before", "after") if w in entry]
            name = entry.get("id")
            remove = entry.get("remove") is True
            if "at" in entry and name is not None:
                found.add(("MPR916", file, line))
                continue
            if where and (len(where) > 1 or remove or "at" in entry or name is None):
                found.add(("MPR918", file, line))
                continue
            if "at" in entry:
                at = entry["at"]
                if type(at) is not int or not 1 <= at <= count or slots[at - 1] is None:
                    found.add(("MPR904", file, line))
                    continue
                target: int | None = at - 1
                label = f"#{at}"
            elif name is not None:
                matches = standing(name)
                if len(matches) > 1:
                    found.add(("MPR905", file, line))
                    continue
                target = matches[0] if matches else None
                label = str(name)
                if target is None and remove:
                    found.add(("MPR904", file, line))
                    continue
            else:
                found.add(("MPR907", file, line))
                continue
            anchor = None
            if where:
                anchors = standing(entry[where[0]])
                if not anchors:
                    found.add(("MPR917", file, line))
                    continue
                anchor = anchors[0]
            if label in written:
                found.add(("MPR903", file, line))
                continue
            written.add(label)
            row = Row({k: v for k, v in entry.items() if k not in ("at", "before", "after", "remove")},
                      layer, file, line)
            if remove:
                slots[target] = None  # type: ignore[index]
            elif anchor is None and target is not None:
                slots[target] = row
            else:
                if target is not None:
                    slots[target] = None
                slots.append(row)
                if anchor is not None:
                    around.setdefault(anchor, ([], []))[0 if where[0] == "before" else 1].append(len(slots) - 1)
                    placed.add(len(slots) - 1)

        def expand(i: int, slots: list[Row | None] = slots, around: dict = around) -> list[Row | None]:
            before, after = around.get(i, ([], []))
            return [r for j in before for r in expand(j)] + [slots[i]] + [r for j in after for r in expand(j)]

        rows = [r for i in range(len(slots)) if i not in placed for r in expand(i) if r is not None]
    return rows, found


# -- random scripts ----------------------------------------------------------------------------

FIRST_EDIT_LINE = 8  # the line of a layer's first edit in the manifest written below


def script(rng: random.Random, names: list[str], layer: int) -> list[dict]:
    """A random layer of edits: most name rows written before (in this layer or earlier ones)."""
    entries: list[dict] = []
    for k in range(rng.randint(1, 14)):
        pool = names or ["r0"]
        roll = rng.random()
        old = rng.choice(pool)
        other = rng.choice(pool + ["missing"])
        value = rng.randint(0, 9)
        if roll < 0.25:
            entry: dict = {"id": f"n{layer}_{k}", "value": value}
            if rng.random() < 0.4:
                entry[rng.choice(["before", "after"])] = other
            names.append(entry["id"])
        elif roll < 0.45:
            entry = {"id": old, "value": value}
        elif roll < 0.58:
            entry = {"id": rng.choice([old, old, "missing"]), "remove": True}
        elif roll < 0.7:
            entry = {"id": old, "value": value, rng.choice(["before", "after"]): other}
        elif roll < 0.8:
            entry = {"at": rng.choice([1, 2, 3, 50]), **({"remove": True} if rng.random() < 0.5
                                                             else {"value": value})}
        elif roll < 0.84:
            entry = {"id": old, "at": 1, "value": value}
        elif roll < 0.88:
            entry = {"id": old, "before": other, "after": other, "value": value}
        elif roll < 0.91:
            entry = {"id": old, "remove": True, "after": other}
        elif roll < 0.94:
            entry = {"value": value}
        else:
            entry = {"id": f"n{layer}_{k - 1}", "value": value}  # maybe written twice by this layer
        entries.append(entry)
    return entries


def flow(entry: dict) -> str:
    return "{" + ", ".join(f"{k}: {v}" if k != "remove" else "remove: true" for k, v in entry.items()) + "}"


def build(root: Path, base: list[dict], layers: list[tuple[str, list[dict]]]) -> Path:
    rows = "\n".join("  - " + flow({"when": "'true'", **row}) for row in base)
    write(root / "l0", {"ruleset.yaml": manifest("l0"), "t.yaml": BASE.format(rows=rows)})
    parent = "l0"
    for name, entries in layers:
        edits = "\n".join("      - " + flow({**e, "when": "'true'"} if "value" in e else e) for e in entries)
        # the manifest's first lines: id, version, title, extends, overrides, rule, rows (7)
        text = manifest(name, f"extends: ../{parent}\noverrides:\n  {RULE}:\n    rows:\n{edits}\n")
        assert text.splitlines()[FIRST_EDIT_LINE - 1].startswith("      - ")
        write(root / name, {"ruleset.yaml": text})
        parent = name
    return root / parent


def compare(root: Path, base: list[dict], layers: list[tuple[str, list[dict]]]) -> None:
    top = build(root, base, layers)
    rows, expected = reference(base, layers)
    ruleset, findings = collect(top)
    got = {(d.code, str(Path(d.file).relative_to(root)) if d.file else None, d.line)
           for d in findings if d.code in FOLD_CODES}
    assert got == expected
    assert ruleset is not None
    rule = ruleset.rules[RULE]
    assert [(r.get("id"), r.get("value")) for r in rule.doc["rows"]] == \
        [(r.data.get("id"), r.data.get("value")) for r in rows]
    for i, row in enumerate(rows):  # each row is located where the layer that wrote it wrote it
        loc = rule.loc("rows", i, "value")
        assert (str(Path(loc.file).relative_to(root)), loc.line) == (row.file, row.line)
        assert rule.loc("rows", i, "before").line == row.line  # an edit's own words are not kept
    assert rule.row_layers == {(str(r.data["id"]) if r.data.get("id") is not None else f"#{i + 1}"): r.layer
                               for i, r in enumerate(rows)}


@pytest.mark.parametrize("seed", range(30))
def test_random_edit_scripts_fold_as_the_reference_does(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"r{i}" for i in range(rng.randint(1, 8))]
    base = [{"id": n, "value": i} for i, n in enumerate(names)]
    if rng.random() < 0.3:
        base.insert(rng.randint(0, len(base)), {"id": rng.choice(names), "value": 9})  # a duplicate id
    if rng.random() < 0.5:
        base.insert(rng.randint(0, len(base)), {"value": 7})  # a row without id
    layers = [(f"l{n}", script(rng, names, n)) for n in range(1, rng.randint(2, 6))]
    compare(tmp_path, base, layers)


# (name, base rows, layers' edits)
CASES = [
    ("before and after of rows added by the same layer",
     [{"id": "a", "value": 1}, {"id": "b", "value": 2}],
     [("l1", [{"id": "x", "value": 3, "after": "a"}, {"id": "y", "value": 4, "after": "a"},
              {"id": "z", "value": 5, "after": "x"}, {"id": "w", "value": 6, "before": "x"}])]),
    ("a row moved, then others placed around where it was",
     [{"id": "a", "value": 1}, {"id": "b", "value": 2}, {"id": "c", "value": 3}],
     [("l1", [{"id": "x", "value": 3, "after": "b"}, {"id": "b", "value": 9, "after": "c"},
              {"id": "y", "value": 4, "after": "x"}])]),
    ("edits of rows changed, moved and removed by earlier layers",
     [{"id": "a", "value": 1}, {"id": "b", "value": 2}],
     [("l1", [{"id": "a", "value": 5, "after": "b"}, {"id": "c", "value": 3, "before": "b"}]),
      ("l2", [{"id": "a", "value": 6}, {"id": "b", "remove": True}, {"id": "d", "value": 4, "after": "c"}]),
      ("l3", [{"id": "b", "remove": True}, {"id": "x", "value": 1, "before": "b"}, {"at": 2, "value": 0},
              {"at": 3, "remove": True}, {"id": "c", "value": 8}])]),
    ("every error of one layer",
     [{"id": "a", "value": 1}, {"id": "a", "value": 2}, {"value": 3}],
     [("l1", [{"id": "a", "value": 5}, {"id": "nope", "remove": True}, {"at": 9, "remove": True},
              {"id": "b", "at": 1, "value": 1}, {"id": "b", "before": "a", "after": "a", "value": 1},
              {"id": "b", "remove": True, "before": "a"}, {"value": 1}, {"id": "c", "value": 1, "before": "nope"},
              {"at": 3, "value": 4}, {"at": 3, "value": 5}, {"at": 2, "remove": True}, {"at": 2, "value": 1}])]),
    ("a placement next to a row the same layer removes",
     [{"id": "a", "value": 1}, {"id": "b", "value": 2}],
     [("l1", [{"id": "x", "value": 3, "after": "a"}, {"id": "a", "remove": True},
              {"id": "y", "value": 4, "after": "x"}, {"id": "z", "value": 5, "before": "a"}])]),
]


@pytest.mark.parametrize("name, base, layers", CASES, ids=[c[0] for c in CASES])
def test_edit_cases_fold_as_the_reference_does(tmp_path: Path, name: str, base: list[dict],
                                               layers: list[tuple[str, list[dict]]]) -> None:
    compare(tmp_path, base, layers)


def test_the_reference_finds_what_the_cases_test() -> None:
    """The cases above reach every finding of a row edit (so the comparison can fail)."""
    codes = {code for _, base, layers in CASES for code, _, _ in reference(base, layers)[1]}
    assert codes == FOLD_CODES
