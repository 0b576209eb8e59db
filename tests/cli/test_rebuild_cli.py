"""Rebuild through ``mprules run --input FILE``: a bad plan is refused at the file, line and column
of the offending field (the path ``a.b[2].c`` mapped into the input file), a misspelt field is
refused rather than ignored, and the text a player reads names an illegal ability plan's problem
and one nearby legal plan, in Japanese and English."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.cli import main

ABILITIES = """\
before: {body: 12, sense: 12, intellect: 12, magic: 9}
after:
  body: 20
  sense: {sense}
  intellect: 10
  magic: 5
"""

CHARACTER = """\
gm_permits_conversion: true
abilities:
  before: {body: 12, sense: 12, intellect: 12, magic: 9}
  after: {body: 15, sense: 12, intellect: 10, magic: 5}
  to_skills: 2
  to_money: 1
skills:
  before: [{name: 格闘, rank: master}, {name: 射撃, rank: expert}]
  after:
    - {name: 格闘, rank: master}
    - {name: 射撃, rank: expert}
    - {name: 知覚, rank: %s}
items:
  money: {initial: 3000, scenarios: 2000}
  purchases: [{name: 魔煌銃, price: 3000, phase: creation}, {name: 防弾ベスト, price: 3000, phase: after}]
spells:
  learned: [{name: 火球, school: 炎, tier: 1, cost: 1000, paid_from: ordinary}]
  relearn: []
"""


def cli(tmp_path: Path, capsys: pytest.CaptureFixture, rule: str, text: str, *extra: str
        ) -> tuple[int, str, str]:
    plan = tmp_path / "plan.yaml"
    plan.write_text(text, encoding="utf-8")
    status = main(["run", rule, "--input", str(plan), *extra])
    out, err = capsys.readouterr()
    return status, out, err.replace(str(plan), "plan.yaml")


LOCATED = [  # (rule, input text, the field's path, code, the text the error points at)
    ("rebuild.abilities", ABILITIES.replace("{sense}", "-1"), "after.sense", "MPR802", "-1"),
    ("rebuild.abilities", ABILITIES.replace("{sense}", "10\n  luck: 3"), "after.luck", "MPR800",
     "3\n  intellect"),  # a field the procedure refuses is shown at its value
    ("rebuild.character", CHARACTER % "grand", "skills.after[2].rank", "MPR800", "grand"),
    ("rebuild.character", (CHARACTER % "expert").replace("school: 炎, ", ""),
     "spells.learned[0].school", "MPR801", "{name: 火球"),
    ("rebuild.character", (CHARACTER % "expert").replace("phase: after}", "phase: after, qty: 2}"),
     "items.purchases[1].qty", "MPR800", "2}]"),
    ("rebuild.character", (CHARACTER % "expert").replace("to_money: 1", "to_mony: 1"),
     "abilities.to_mony", "MPR500", "to_mony"),
    ("rebuild.character", (CHARACTER % "expert") + "  money: {spell_only: 500, ordinary: 3000}\n",
     "spells.money.ordinary", "MPR824", "3000}"),
    ("rebuild.character", "gm_permit_conversion: true\n" + CHARACTER % "expert",
     "gm_permit_conversion", "MPR500", "gm_permit_conversion"),
]


@pytest.mark.parametrize("rule,text,path,code,marker", LOCATED)
def test_a_bad_plan_is_located_in_the_input_file(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                 rule: str, text: str, path: str, code: str,
                                                 marker: str) -> None:
    before = text[:text.index(marker)]
    line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
    status, out, err = cli(tmp_path, capsys, rule, text)
    assert status == 1 and out == ""
    assert err.startswith(f"plan.yaml:{line}:{column} ({path}): {code} "), err
    assert "Traceback" not in err


@pytest.mark.parametrize("lang,lines", [
    ("en", ["the rebuild is not legal (1 problem(s))",
            "MPR836 after.body: body 21 is 1 above 20 (the maximum 15 plus at most 5 from the excess)",
            "a nearby legal plan (0 converted): body 20, sense 8, intellect 10, magic 7",
            "move 1 point(s) from body to magic"]),
    ("ja", ["このリビルドは無効です（問題1件）",
            "MPR836 after.body: 【身体】の21は上限20（最大値15＋超過分から最大5点）を1点上回っています",
            "近い有効な割り振りの例（変換0点）：【身体】20、【感覚】8、【知性】10、【魔力】7",
            "【身体】から【魔力】へ1点移す"]),
])
def test_the_text_output_proposes_a_nearby_legal_plan(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                      lang: str, lines: list[str]) -> None:
    text = ABILITIES.replace("body: 20", "body: 21").replace("{sense}", "8").replace(
        "magic: 5", "magic: 6")
    status, out, err = cli(tmp_path, capsys, "rebuild.abilities", text, "--lang", lang)
    assert status == 0 and err == ""  # an illegal plan is a result, not an error
    proposal = {"en": "proposal: {body: 20, sense: 8, intellect: 10, magic: 7}",  # the rule's labels
                "ja": "proposal: {【身体】: 20, 【感覚】: 8, 【知性】: 10, 【魔力】: 7}"}[lang]
    assert "legal: false" in out and proposal in out
    shown = [line.split("─ ", 1)[-1] for line in out.splitlines()]
    positions = [shown.index(line) for line in lines]
    assert positions == sorted(positions), shown


@pytest.mark.parametrize("lang,lines", [
    ("en", ["MPR837 after: the abilities above 15 (body) need 2 points of the excess, but only 0 are "
            "left to place: 2 short",
            "a nearby legal plan (0 converted): body 15, sense 15, intellect 4, magic 6",
            "move 2 point(s) from body to magic"]),
    ("ja", ["MPR837 after: 最大値15を超える【身体】には超過分から2点が必要ですが、割り振れる超過分は0点です"
            "（2点不足）",
            "近い有効な割り振りの例（変換0点）：【身体】15、【感覚】15、【知性】4、【魔力】6",
            "【身体】から【魔力】へ2点移す"]),
])
def test_an_ability_over_the_maximum_without_excess(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                    lang: str, lines: list[str]) -> None:
    text = ("before: {body: 10, sense: 10, intellect: 10, magic: 10}\n"
            "after: {body: 17, sense: 15, intellect: 4, magic: 4}\n")
    status, out, _ = cli(tmp_path, capsys, "rebuild.abilities", text, "--lang", lang)
    shown = [line.split("─ ", 1)[-1] for line in out.splitlines()]
    assert status == 0 and [line for line in shown if line in lines] == lines, shown


def test_the_schema_lists_exactly_the_solvers() -> None:
    """``schemas/kinds/procedure.json`` names the solvers a document may use and gives each the
    shape of its ``fields``; it must agree with the registry, or a new solver is refused by the
    schema (or a removed one passes it)."""
    import json

    from interpreter.documents.resources import schemas_dir
    from interpreter.solvers.registry import SOLVERS

    schema = json.loads((schemas_dir() / "kinds" / "procedure.json").read_text(encoding="utf-8"))
    assert schema["properties"]["solver"]["enum"] == list(SOLVERS)
    assert list(schema["$defs"]["fields"]) == list(SOLVERS)
    assert set(schema["$defs"]["params"]) == {n for n, s in SOLVERS.items() if not s.composite}
