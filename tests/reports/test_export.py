"""``mprules export``: a roll table as a BCDice original table and the checks as a CCFOLIA chat
palette, each checked against its format (BCDice: name, dice, one ``n:text`` line for every roll
of the dice's range; CCFOLIA: ``nMPmCx label`` lines BCDice's MagicPunk system reads)."""
from __future__ import annotations

import re

import pytest

from interpreter.cli import main
from interpreter.reports.export import bcdice_dice
from ruleset_support import manifest, write

ITEM = "item={materials: [魔煌銀], quality: 標準, design: null, ma_gear: null, vehicle: null}"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--lang", "ja", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def bcdice_rolls(dice: str) -> list[int]:
    """The rolls a BCDice original table of ``dice`` must list, from the format's definition."""
    if dice in ("D66", "D66N"):
        return [10 * t + o for t in range(1, 7) for o in range(1, 7)]
    times, sides = map(int, re.fullmatch(r"(\d+)D(\d+)", dice).groups())
    return list(range(times, times * sides + 1))


def assert_bcdice_table(text: str) -> tuple[str, str, dict[int, str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    name, dice, rows = lines[0], lines[1], lines[2:]
    assert name and ":" not in name[:1] and re.fullmatch(r"\d+D\d+|D66N?", dice)
    assert all(re.fullmatch(r"\d+:.+", row) for row in rows), rows
    numbered = {int(row.split(":", 1)[0]): row.split(":", 1)[1] for row in rows}
    assert list(numbered) == bcdice_rolls(dice)
    return name, dice, numbered


def test_bundled_roll_table_as_bcdice_table(capsys) -> None:
    code, out, _ = run(capsys, "export", "bcdice", "cohabitation.leisure.city")
    assert code == 0
    name, dice, rows = assert_bcdice_table(out)
    assert name.startswith("余暇イベント表（都市）") and dice == "2D6"
    assert rows[7] == "空き巣に入られたが、被害は少なかった。" and rows[8] == "（表になし）"


ROLL_TABLE = """\
id: t.events
kind: RollTable
source: R16
title: {{ja: "出来事表（{{params.bonus}}）", en: Events}}
params: {{roll: {roll}, bonus: 3}}
rows:
  - {{roll: [{lo}, {mid}], text: {{ja: "静かな日", en: A quiet day}}}}
  - {{roll: [{mid1}, {hi}], text: {{ja: "報酬 {{params.bonus}} 点\\n次の日も", en: "Reward"}}}}
"""


@pytest.mark.parametrize("roll, lo, hi, dice", [
    ("1d6", 1, 6, "1D6"), ("3d6", 3, 18, "3D6"), ("d66", 11, 66, "D66"), ("1d20", 1, 20, "1D20")])
def test_any_roll_table_as_bcdice_table(capsys, tmp_path, roll, lo, hi, dice) -> None:
    mid = (lo + hi) // 2
    root = write(tmp_path, {"ruleset.yaml": manifest("t"), "t.yaml": ROLL_TABLE.format(
        roll=roll, lo=lo, mid=mid, mid1=mid + 1, hi=hi)})
    code, out, err = run(capsys, "export", "bcdice", "t.events", "--ruleset", str(root))
    assert code == 0, err
    name, shown, rows = assert_bcdice_table(out)
    assert (name, shown) == ("出来事表（3）", dice)
    assert rows[lo] == "静かな日" and rows[hi] == "報酬 3 点\\n次の日も"


@pytest.mark.parametrize("text, expected", [
    ("2d6", ("2D6", 2, 12)), ("d6", ("1D6", 1, 6)), ("D66", ("D66", 11, 66)), ("2d6+1", None),
    ("max(1d6, 2)", None)])
def test_bcdice_dice(text, expected) -> None:
    found = bcdice_dice(text)
    assert (found and (found[0], found[1][0], found[1][-1])) == (expected or None)


@pytest.mark.parametrize("argv, exit_code, code", [
    (["export", "bcdice", "procurement.check"], 2, "MPR910"),
    (["export", "bcdice", "no.such"], 1, None),
    (["export", "ccfolia"], 1, "MPR912"),
    (["export"], 2, "MPR001"),
])
def test_export_errors(capsys, argv, exit_code, code) -> None:
    found, out, err = run(capsys, *argv)
    assert found == exit_code and out == ""
    assert code is None or code in err


CHARS = ("characters:\n  - {id: rin, name: リン, abilities: {intellect: 12}}\n"
         "  - {id: kai, name: カイ, abilities: {知性: 9}}\n"
         "  - {id: mo, name: モ, abilities: {body: 9}}\n")


@pytest.mark.parametrize("character, palette, note", [
    ("rin", "2MP12C3 調達判定\n", None),
    ("kai", "2MP9C3 調達判定\n", None),  # the ability written under the sheet's name
    ("mo", "2MP{知性}C3 調達判定\n", "モ: キャラクターのファイルに能力値 知性 がないので {知性} と書きました"),
])
def test_ccfolia_palette_of_a_character_is_commands_only(capsys, tmp_path, character, palette,
                                                         note) -> None:
    chars = tmp_path / "chars.yaml"
    chars.write_text(CHARS, encoding="utf-8")
    code, out, err = run(capsys, "export", "ccfolia", "--characters", str(chars), "--character",
                         character, "--var", ITEM)
    assert (code, out) == (0, palette)
    for line in out.splitlines():  # every line a command BCDice's MagicPunk system rolls, a label
        assert re.fullmatch(r"\d*MP(\d+|\{\S+\})(C\d+)? \S.*", line)
    assert (note in err) if note else err == ""
    assert "省いた判定" not in err  # the line was written: the note says so, not "left out"


def test_ccfolia_palette_of_several_characters_asks_for_one(capsys, tmp_path) -> None:
    chars = tmp_path / "chars.yaml"
    chars.write_text(CHARS, encoding="utf-8")
    code, out, err = run(capsys, "export", "ccfolia", "--characters", str(chars), "--var", ITEM)
    assert (code, out) == (2, "")
    assert "MPR327" in err and "rin, kai, mo" in err and "--character" in err


def test_ccfolia_palette_refers_to_abilities_without_characters(capsys, tmp_path) -> None:
    target = tmp_path / "palette.txt"
    code, out, err = run(capsys, "export", "ccfolia", "--var", ITEM, "-o", str(target))
    assert (code, out) == (0, "")
    assert target.read_text(encoding="utf-8") == "2MP{知性}C3 調達判定\n"
    assert "{知性} と書きました" in err and "省いた判定" not in err


def test_ccfolia_ability_labels_are_the_rulesets_data(capsys, tmp_path) -> None:
    """A variant renames the sheet's abilities; English asked for, the English labels."""
    root = tmp_path / "house"
    root.mkdir()
    from interpreter.documents.resources import rulesets_dir

    (root / "ruleset.yaml").write_text(
        "id: house\nversion: 0.1.0\ntitle: {ja: 家, en: house}\n"
        f"extends: {rulesets_dir() / 'magipunk'}\n"
        "parameters:\n  sheet:\n    abilities:\n      intellect: {ja: 知力, en: INT}\n",
        encoding="utf-8")
    code, out, _ = run(capsys, "export", "ccfolia", "--ruleset", str(root), "--var", ITEM)
    assert (code, out) == (0, "2MP{知力}C3 調達判定\n")
    code, out, _ = run(capsys, "export", "ccfolia", "--ruleset", str(root), "--var", ITEM,
                       "--lang", "en")
    assert code == 0 and out.startswith("2MP{INT}C3 ")


def test_ccfolia_unknown_character(capsys, tmp_path) -> None:
    chars = tmp_path / "chars.yaml"
    chars.write_text("characters:\n  - {id: rin, abilities: {intellect: 12}}\n", encoding="utf-8")
    code, _, err = run(capsys, "export", "ccfolia", "--characters", str(chars), "--character", "x")
    assert code == 2 and "MPR914" in err and "rin" in err
