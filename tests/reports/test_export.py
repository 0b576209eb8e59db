"""``mprules export``: a roll table as a BCDice original table and the checks as a CCFOLIA chat
palette, each checked against its format (BCDice: name, dice, one ``n:text`` line for every roll
of the dice's range, read by a model of BCDice's own parser, which BCDice itself confirms when
``MPRULES_BCDICE_LIB`` names BCDice's ``lib/`` and ``ruby`` is installed; CCFOLIA: ``nMPmCx
label`` lines BCDice's MagicPunk system reads)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

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


# The original-table format as BCDice reads it (learned from its UserDefinedDiceTable): the text
# is split into lines at every \R, each right-stripped, empty ones dropped; the first line is the
# name, the second the dice (upper-cased); every other line must start with digits and a colon,
# and the numbers must be exactly the dice's rolls. A roll shows the text after "n:" of the first
# line starting so, with each backslash-n made a line break, stripped.
_R = re.compile("\r\n|[\n\x0b\x0c\r\x85\u2028\u2029]")


def bcdice_read(text: str) -> tuple[str, str, list[str], bool]:
    lines = [line.rstrip() for line in _R.split(text)]
    lines = [line for line in lines if line]
    name, dice, rows = lines[0], lines[1].upper(), lines[2:]
    valid = all(re.match(r"\d+:", row) for row in rows) and \
        sorted({int(re.match(r"\d+", row).group()) for row in rows}) == bcdice_rolls(dice)
    return name, dice, rows, valid


def bcdice_roll(text: str, n: int) -> str | None:
    """What BCDice shows when the dice give ``n``: ``name(n) ＞ text``."""
    name, _, rows, valid = bcdice_read(text)
    row = next((r for r in rows if r.startswith(f"{n}:")), None)
    if not valid or row is None:
        return None
    return f"{name}({n}) ＞ " + row[len(f"{n}:"):].replace("\\n", "\n").strip()


def assert_bcdice_table(text: str) -> tuple[str, str, dict[int, str]]:
    name, dice, rows, valid = bcdice_read(text)
    assert valid and name and re.fullmatch(r"\d+D\d+|D66N?", dice), text
    shown = {n: bcdice_roll(text, n) for n in bcdice_rolls(dice)}
    return name, dice, {n: t.split(" ＞ ", 1)[1] for n, t in shown.items()}  # type: ignore[union-attr]


def test_bundled_roll_table_as_bcdice_table(capsys) -> None:
    code, out, err = run(capsys, "export", "bcdice", "cohabitation.leisure.city")
    assert code == 0
    name, dice, rows = assert_bcdice_table(out)
    assert name.startswith("余暇イベント表（都市）") and dice == "2D6"
    assert rows[7] == "空き巣に入られたが、被害は少なかった。" and rows[8] == "（表になし）"
    # 13 and 15, which 2d6 never gives, are shown on the 12 as reached by changing the roll
    assert rows[12] == ("（表になし）\n（出目の増減で）13：行政から区画整理のための立ち退きを言い渡された。"
                        "\n（出目の増減で）15：最近、居住地域での犯罪率が低下しているようだ。")
    assert "13 eviction, 15 crime_falling" in err and "--shift" in err


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
    assert code == 0 and err == "", err
    name, shown, rows = assert_bcdice_table(out)
    assert (name, shown) == ("出来事表（3）", dice)
    assert rows[lo] == "静かな日" and rows[hi] == "報酬 3 点\n次の日も"  # a line break in BCDice


GM_TABLE = """\
id: t.gm
kind: RollTable
source: house
title: {{en: "GM table", ja: "ＧＭの表"}}
params: {{roll: {roll}}}
{range}rows:
{rows}
"""

EDGE_CASES = [  # (roll, range, rows, {roll: what BCDice shows after "＞ "}, stderr mentions)
    ("1d6", "", ["{roll: [1, 6], text: {ja: 'a literal \\n stays', en: x}}"],
     {1: "a literal ＼n stays"}, []),
    ("1d6", "", ['{roll: [1, 6], text: {ja: "two\\u2028lines", en: x}}'], {6: "two\nlines"}, []),
    ("1d6", "", ['{roll: [1, 6], text: {ja: "  spaced\\n  inside  ", en: x}}'], {3: "spaced\n  inside"}, []),
    ("1d6", "", ["{roll: [1, 3], value: 5}", "{roll: [4, 6], value: {gold: 3, item: 剣}}"],
     {1: "5", 6: "{gold: 3, item: 剣}"}, []),
    ("1d6", "", ["{roll: [1, 3], id: low, value: 1}", "{roll: [4, 6], id: high, text: {ja: 高い, en: x}, value: 9}"],
     {2: "1", 5: "高い"}, []),
    ("1d4", "range: [0, 7]\n", ["{roll: 0, text: {ja: ゼロ, en: x}}", "{roll: [1, 4], text: {ja: 普通, en: x}}",
                                "{roll: [5, 6], id: five, text: {ja: 高い, en: x}}", "{roll: 7, id: seven, value: 7}"],
     {1: "普通\n（出目の増減で）0：ゼロ", 4: "普通\n（出目の増減で）5-6：高い\n（出目の増減で）7：7"},
     ["0 #1", "5-6 five", "7 seven"]),
    ("d66", "range: [11, 70]\n", ["{roll: [11, 16], text: {ja: 一, en: x}}",
                                  "{roll: [17, 20], id: hole, text: {ja: 穴, en: x}}",
                                  "{roll: [21, 66], text: {ja: 表, en: x}}",
                                  "{roll: [67, 70], id: top, text: {ja: 上, en: x}}"],
     {16: "一\n（出目の増減で）17-20：穴", 21: "表", 66: "表\n（出目の増減で）67-70：上"},
     ["17-20 hole", "67-70 top"]),
]


@pytest.mark.parametrize("roll, range_, rows, shown, notes", EDGE_CASES, ids=[
    "literal backslash-n", "a line separator", "spaces", "value-only rows", "text over value",
    "rows outside the dice", "rows in the holes of d66"])
def test_bcdice_table_as_bcdice_reads_it(capsys, tmp_path, roll, range_, rows, shown, notes) -> None:
    text = GM_TABLE.format(roll=roll, range=range_, rows="\n".join(f"  - {r}" for r in rows))
    root = write(tmp_path, {"ruleset.yaml": manifest("t"), "t.yaml": text})
    code, out, err = run(capsys, "export", "bcdice", "t.gm", "--ruleset", str(root))
    assert code == 0, err
    _, _, got = assert_bcdice_table(out)
    for n, expected in shown.items():
        assert got[n] == expected
    for note in notes:
        assert note in err
    assert all(line.count(":") >= 1 for line in out.splitlines()[2:])


@pytest.mark.parametrize("table, shift, shown", [
    ("cohabitation.leisure.city", 3, {12: "［→15］最近、居住地域での犯罪率が低下しているようだ。",
                                      10: "［→13］行政から区画整理のための立ち退きを言い渡された。",
                                      2: "［→5］（表になし）"}),
    ("cohabitation.leisure.city", -1, {2: "家の様子がおかしい。何か大切なものがなくなっているような……。",
                                       3: "［→2］家の様子がおかしい。何か大切なものがなくなっているような……。"}),
    ("cohabitation.leisure.wilderness", 1, {12: "［→13］追放者の集落に行き着いた。あるいは新たな追放者が集落にやってきた。"}),
    ("cohabitation.leisure.wilderness", 0, {2: "突如として魔煌災害が発生した。\n（出目の増減で）1："
                                            "魔物のスタンピードに遭遇した。残念ながら、このだだっ広い野外に逃げ場などない。"}),
], ids=["city +3", "city -1 stops at the table's end", "wilderness +1", "a shift of 0"])
def test_bcdice_table_with_a_shift(capsys, table, shift, shown) -> None:
    code, out, err = run(capsys, "export", "bcdice", table, "--shift", str(shift))
    assert code == 0
    name, _, rows = assert_bcdice_table(out)
    assert name.endswith(f"（出目{shift:+d}）") is (shift != 0)
    assert ("--shift" in err) is (shift == 0)
    if table.endswith("city") and shift == 3:  # the rows +3 never gives are named, not written
        assert "2 home_disturbed, 3 residence_destroyed, 4 burglary_heavy" in err
    for n, expected in shown.items():
        assert rows[n] == expected


def _bcdice_lib() -> Path | None:
    lib = os.environ.get("MPRULES_BCDICE_LIB")
    if not lib or not shutil.which("ruby") or not (Path(lib) / "bcdice" / "user_defined_dice_table.rb").is_file():
        return None
    return Path(lib)


@pytest.mark.skipif(_bcdice_lib() is None, reason="BCDice itself: set MPRULES_BCDICE_LIB to BCDice's lib/ (and install ruby)")
@pytest.mark.parametrize("case", range(len(EDGE_CASES) + 4))
def test_bcdice_itself_reads_the_tables_as_the_format_says(capsys, tmp_path, case) -> None:
    """BCDice's own parser (Ruby, offline) rolls every exported table exactly as the format model
    above reads it: valid, and the same text for every roll of the dice."""
    if case < len(EDGE_CASES):
        roll, range_, rows, _, _ = EDGE_CASES[case]
        text = GM_TABLE.format(roll=roll, range=range_, rows="\n".join(f"  - {r}" for r in rows))
        root = write(tmp_path / "r", {"ruleset.yaml": manifest("t"), "t.yaml": text})
        argv = ["export", "bcdice", "t.gm", "--ruleset", str(root)]
    else:
        table = ["cohabitation.leisure.city", "cohabitation.leisure.wilderness"][case % 2]
        argv = ["export", "bcdice", table] + (["--shift", "2"] if case >= len(EDGE_CASES) + 2 else [])
    code, out, _ = run(capsys, *argv)
    assert code == 0
    exported = tmp_path / "table.txt"
    exported.write_text(out, encoding="utf-8")
    _, dice, _, _ = bcdice_read(out)
    numbers = bcdice_rolls(dice)
    done = subprocess.run(["ruby", str(Path(__file__).with_name("bcdice_table.rb")), str(_bcdice_lib()),
                           str(exported), *map(str, numbers)], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["valid"] is True
    assert found["results"] == {str(n): bcdice_roll(out, n) for n in numbers}


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


RAW_TABLES = [  # texts in and around the format, for the model and BCDice to read alike
    "表\n1D2\n1:a\n2:b\n",
    "表\n1D2\n1:a\n2:b\n3:c\n",  # a row outside the dice: not a valid table
    "表\n1D2\n1:a\n※ note\n2:b\n",  # a note line: not a valid table
    "表\n1d2\n\n1:  a\\nb  \n2:b\\\\nc\n",  # lower-case dice, a blank line, escapes
    "表\r\n1D2\r\n1:a\u2028x\n2:b\n",  # a line separator splits the row
    "表\n1D2\n1:a\n1:again\n2:b\n",  # a number twice: the first line wins
]


@pytest.mark.skipif(_bcdice_lib() is None, reason="BCDice itself: set MPRULES_BCDICE_LIB to BCDice's lib/ (and install ruby)")
@pytest.mark.parametrize("text", RAW_TABLES)
def test_the_format_model_reads_as_bcdice_does(tmp_path, text: str) -> None:
    table = tmp_path / "table.txt"
    table.write_text(text, encoding="utf-8")
    done = subprocess.run(["ruby", str(Path(__file__).with_name("bcdice_table.rb")), str(_bcdice_lib()),
                           str(table), "1", "2"], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["valid"] is bcdice_read(text)[3]
    assert found["results"] == {str(n): bcdice_roll(text, n) for n in (1, 2)}
