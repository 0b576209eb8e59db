"""``mprules check`` and ``mprules prob`` on the check data of a ruleset: a house-rule variant's
data changes the line and the odds; bad data is reported by ``validate``; ``prob nMPmCx`` folds the
same data as ``check --prob``."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from interpreter.cli import main
from interpreter.documents.resources import rulesets_dir

HOUSE = rulesets_dir() / "examples" / "house_rules" / "bad_beat_two_dice"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--lang", "ja", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("ruleset, notation, dice, line", [
    (None, "MP12", "1", "(1MP12C0) > [1] > 失敗(BB)"),
    (HOUSE, "MP12", "1", "(1MP12C0) > [1] > 失敗"),
    (HOUSE, "MP1", "1", "(1MP1C0) > [1] > 失敗"),
    (HOUSE, "2MP12", "1,1", "(2MP12C0) > [1,1] > 失敗(BB)"),
    (HOUSE, "0MP12", "1,5", "(0MP12C0) > [1,5] > 失敗(BB)"),
])
def test_a_variant_changes_the_line(capsys, ruleset, notation: str, dice: str, line: str) -> None:
    extra = [] if ruleset is None else ["--ruleset", str(ruleset)]
    code, out, _ = run(capsys, "check", notation, "--dice", dice, *extra)
    assert (code, out) == (0, line + "\n")


def test_prob_of_a_check_sums_to_one_and_matches_check_prob(capsys) -> None:
    code, out, _ = run(capsys, "prob", "3MP15C10", "--format", "json")
    assert code == 0
    odds = json.loads(out)
    assert sum(Fraction(o["probability"]) for o in odds["outcomes"]) == 1
    code, out, _ = run(capsys, "check", "3MP15C10", "--prob", "--format", "json")
    assert json.loads(out) == odds
    assert odds["probability"] == "657/1000" and odds["specials"]["BB"]["probability"] == "1/8000"


def test_prob_text_lists_each_result_line(capsys) -> None:
    code, out, _ = run(capsys, "prob", "MP12")
    assert code == 0
    assert "成功(JP)" in out and "成功(11)" in out and "失敗(BB)" in out
    assert "(1MP12C0) 成功率 11/20 (55.00%)" in out


def test_verbose_explains_each_condition(capsys) -> None:
    code, out, _ = run(capsys, "check", "3MP15C18", "--dice", "9,15,18", "-v")
    lines = out.splitlines()
    assert lines[0] == "(3MP15C18) > [9,15,18] > 成功(JP)"
    assert lines[3].startswith("  JP ジャックポット") and lines[3].endswith("成り立つ")


def test_bad_check_data_is_a_validation_finding(capsys, tmp_path) -> None:
    (tmp_path / "ruleset.yaml").write_text(
        "id: bad\nversion: 0.1.0\ntitle: {ja: x, en: x}\n"
        f"extends: {rulesets_dir() / 'magipunk'}\n"
        "parameters:\n  core_check:\n    results:\n      jackpot: {effect: win}\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 1 and "MPR730" in out + err
    code, _, err = run(capsys, "check", "MP5", "--dice", "3", "--ruleset", str(tmp_path))
    assert code != 0 and "MPR730" in err


@pytest.mark.parametrize("data, field", [
    ("success: {any: 'die'}", "success.any"),            # a number, not a condition
    ("success: {any: \"'die'\"}", "success.any"),         # a text
    ("success: {any: die <= target, if: dice}", "success.if"),
    ("value: {highest: \"'a'\"}", "value.highest"),       # would print 成功(a)
    ("value: {highest: die >= 1}", "value.highest"),      # true/false is no achieved value
    ("results:\n      jackpot: {when: {any: die == target}, effect: success, precedence: 2, "
     "value: \"'x'\"}", "results.jackpot.value"),
])
def test_check_conditions_are_true_or_false_and_values_numbers(capsys, tmp_path, data: str,
                                                               field: str) -> None:
    (tmp_path / "ruleset.yaml").write_text(
        "id: bad\nversion: 0.1.0\ntitle: {ja: x, en: x}\n"
        f"extends: {rulesets_dir() / 'magipunk'}\n"
        f"parameters:\n  core_check:\n    {data}\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 1 and "MPR730" in out and f"core_check.{field} " in out
    code, out, err = run(capsys, "check", "MP5", "--dice", "3", "--ruleset", str(tmp_path))
    assert code != 0 and out == "" and "MPR730" in err and "成功" not in err
