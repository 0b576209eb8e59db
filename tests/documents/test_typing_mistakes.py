"""Japanese typing mistakes get their own hint at the right line and column: a full-width space
(U+3000) in the indentation, a full-width colon after a key, full-width digits and signs where a
schema wants a number (expressions accept them as they are)."""
from __future__ import annotations

import pytest

from interpreter.cli import main
from interpreter.documents.loader import load_text
from rules_dsl.errors import MprError
from ruleset_support import manifest, write

S = "\u3000"


@pytest.mark.parametrize("text, code, line, column", [
    (f"id: a.b\nparams:\n{S}allowance: 3\n", "MPR240", 3, 1),
    (f"id: a.b\nparams:\n  x: 1\n{S}{S}allowance: 3\n", "MPR240", 4, 1),
    (f"id: a.b\nparams:\n  x: 1\n {S}allowance: 3\n", "MPR240", 4, 2),
    ("id: a.b\nparams:\n  allowance：3\n", "MPR241", 3, 12),
    ("id: a.b\nparams:\n  allowance：3\n  other: 2\n", "MPR241", 3, 12),
    ("id: a.b\nparams:\n  other: 2\n  allowance：3\n", "MPR241", 4, 12),
    ("id: a.b\nallowance： 3\n", "MPR241", 2, 10),
    ("id: a.b\nparams:\n  x: [1, 2\n", "MPR206", None, None),
])
def test_hint_at_the_right_place(text: str, code: str, line: int | None, column: int | None) -> None:
    with pytest.raises(MprError) as caught:
        load_text(text, "f.yaml")
    assert caught.value.code == code
    if line is not None:
        assert (caught.value.loc.line, caught.value.loc.column) == (line, column)


@pytest.mark.parametrize("text", [
    f"text: |-\n  {S}段落の始まりの全角スペース\n", "en: MP：1\nja: HP：3\n",
    "title: {ja: 余暇イベント表（都市）：同居する}\n", "ja: \"allowance：3\"\n"])
def test_japanese_text_is_left_be(text: str) -> None:
    load_text(text, "f.yaml")


TABLE = """\
id: t.events
kind: RollTable
source: R16
title: {{ja: 出来事表, en: Events}}
params: {{roll: ２ｄ６＋１}}
range: [{lo}, {hi}]
rows:
  - {{roll: [1, 6], text: {{ja: 静かな日}}}}
  - {{roll: [7, 13], text: {{ja: 騒がしい日}}}}
"""


@pytest.mark.parametrize("lo, hi, findings", [
    ("1", "13", []),
    ("１", "13", ["t.yaml:6:9: MPR242 １ は全角で書かれています。数は半角で 1 と書いてください"]),
    ("1", "１３", ["t.yaml:6:12: MPR242 １３ は全角で書かれています。数は半角で 13 と書いてください"]),
    ("－１", "13", ["t.yaml:6:9: MPR242 －１ は全角で書かれています。数は半角で -1 と書いてください"]),
])
def test_fullwidth_numbers_are_named_where_a_schema_wants_a_number(
        capsys, tmp_path, monkeypatch, lo: str, hi: str, findings: list[str]) -> None:
    write(tmp_path, {"ruleset.yaml": manifest("t"), "t.yaml": TABLE.format(lo=lo, hi=hi)})
    monkeypatch.chdir(tmp_path)
    code = main(["--lang", "ja", "validate", "."])
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "MPR242" in line] == findings
    assert code == (1 if findings else 0), out
