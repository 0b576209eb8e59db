"""The CLI verbs of the language: ``check``, ``eval`` and ``prob``, run through ``cli.main`` with
their printed output and exit codes; plus the SVG chart they write."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from interpreter.cli import main
from interpreter.reports.svg import Section, render


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--lang", "ja", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, line", [
    (["check", "3MP15C10", "--dice", "9,4,18"], "(3MP15C10) > [9,4,18] > 失敗"),
    (["check", "3MP15C10", "--dice", "9,4,12"], "(3MP15C10) > [9,4,12] > 成功(12)"),
    (["check", "3MP15C10", "--dice", "15,4,2"], "(3MP15C10) > [15,4,2] > 成功(JP)"),
    (["check", "３ＭＰ１５", "--dice", "１、１、１"], "(3MP15C0) > [1,1,1] > 失敗(BB)"),
    (["check", "0MP15C5", "--dice", "6,12"], "(0MP15C5) > [6,12] > 成功(6)"),
    (["check", "3MP15C10", "--dice", "9,4,12", "--lang", "en"], "(3MP15C10) > [9,4,12] > success(12)"),
    (["check", "3MP15C10", "--prob"], "(3MP15C10) 成功率 657/1000 (65.70%)\n  BB バッドビート 1/8000 (0.01%)\n  JP ジャックポット 1141/8000 (14.26%)"),
    (["check", "2MP15C7", "--prob", "--lang", "en"], "(2MP15C7) success probability 279/400 (69.75%)\n  BB bad beat 1/400 (0.25%)\n  JP jackpot 39/400 (9.75%)"),
])
def test_check_text(capsys, argv, line):
    code, out, _ = run(capsys, *argv)
    assert (code, out) == (0, line + "\n")


@pytest.mark.parametrize("argv, expected", [
    (["check", "3MP15C10", "--dice", "9,4,18", "--format", "json"],
     {"dice": [9, 4, 18], "success": False, "result": "failure", "special": None, "value": None}),
    (["check", "MP12", "--dice", "12", "--format", "json"],
     {"dice": [12], "success": True, "result": "success", "special": "JP", "value": 12}),
    (["check", "2MP15C7", "--prob", "--format", "json"], {"probability": "279/400", "percent": 69.75}),
    (["check", "3MP15C10", "--prob", "--format", "json"], {"probability": "657/1000", "percent": 65.7}),
    (["check", "MP1", "--prob", "--format", "json"], {"probability": "0", "percent": 0.0}),
])
def test_check_json(capsys, argv, expected):
    code, out, _ = run(capsys, *argv)
    assert code == 0
    got = json.loads(out)  # the shape is extended (line, specials, outcomes), never changed
    assert {key: got[key] for key in expected} == expected


def test_check_seed_repeats(capsys):
    first = run(capsys, "check", "3MP15C10", "--seed", "7", "--format", "json")
    assert first[0] == 0
    assert run(capsys, "check", "3MP15C10", "--seed", "7", "--format", "json") == first
    assert len(json.loads(first[1])["dice"]) == 3


@pytest.mark.parametrize("argv, exit_code, code", [
    (["check", "3MPX"], 1, "MPR010"),
    (["check", "101MP5"], 1, "MPR011"),
    (["check", "3MP15", "--dice", "1,2"], 1, "MPR150"),
    (["check", "3MP15", "--dice", "1,2,21"], 1, "MPR151"),
    (["check", "3MP15", "--dice", "1,2,3,4"], 1, "MPR152"),
    (["check", "3MP15", "--dice", "a,b"], 2, "MPR154"),
    (["check", "3MP15", "--prob", "--dice", "1,2,3"], 2, "MPR001"),
    (["check", "3MP15", "--dice", "1,2,3", "--seed", "1"], 2, "MPR155"),
    (["eval", "d6", "--dice", "3", "--seed", "1"], 2, "MPR155"),
    (["check"], 2, "MPR001"),
    (["eval", "1 +", "--var", "x"], 2, "MPR013"),
    (["eval", "x", "--var", "x=[1,"], 2, "MPR013"),
    (["prob", "2d6", "--input", "/nonexistent/input.yaml"], 3, "MPR014"),
    (["prob", "2d6", "--svg", "/nonexistent/dir/chart.svg"], 3, "MPR016"),
])
def test_errors(capsys, argv, exit_code, code):
    status, out, err = run(capsys, *argv)
    assert status == exit_code
    assert code in err
    assert "Traceback" not in err


def test_svg_is_well_formed_and_escaped():
    svg = render([Section("<魔煌災害> & \"co\"", [("鋼 & <金>", Fraction(1, 3)), ("x\x00", Fraction(2, 3))])])
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == "<魔煌災害> & \"co\""
    assert "鋼 & <金>" in texts and "x" in texts
    assert "33.33%" in texts and "66.67%" in texts


@pytest.mark.parametrize("argv, line", [
    (["eval", "2d6 + 1", "--dice", "3,4"], "(2d6 + 1) > [3,4] > 8"),
    (["eval", "floor(知性 / 2) + 1", "--var", "知性=7"], "(floor(知性 / 2) + 1) > 4"),
    (["eval", "item.quality", "--var", "item={quality: 傑作}"], "(item.quality) > 傑作"),
    (["eval", "a.b + a.c", "--var", "a.b=1", "--var", "a.c=2"], "(a.b + a.c) > 3"),
    (["eval", "２Ｄ６＋１", "--dice", "6,6"], "(２Ｄ６＋１) > [6,6] > 13"),
    (["eval", "2d6 >= 7", "--dice", "1,2"], "(2d6 >= 7) > [1,2] > false"),
])
def test_eval_text(capsys, argv, line):
    code, out, _ = run(capsys, *argv)
    assert (code, out) == (0, line + "\n")


@pytest.mark.parametrize("argv, expected", [
    (["eval", "sum(xs) / 3", "--var", "xs=[1200, 800]"], {"value": "2000/3", "dice": []}),
    (["eval", "sum(xs)", "--var", "xs=[1200, 800]"], {"value": 2000, "dice": []}),
    (["eval", "d66", "--dice", "3,5"], {"value": 35, "dice": [3, 5]}),
    (["eval", "[1d6, x]", "--dice", "4", "--var", "x=0.5"], {"value": [4, "1/2"], "dice": [4]}),
])
def test_eval_json(capsys, argv, expected):
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 0
    assert json.loads(out) == expected


def test_eval_seed_repeats(capsys):
    first = run(capsys, "eval", "3d6 + d66", "--seed", "11", "--format", "json")
    assert first[0] == 0 and len(json.loads(first[1])["dice"]) == 5
    assert run(capsys, "eval", "3d6 + d66", "--seed", "11", "--format", "json") == first


@pytest.mark.parametrize("expression, column", [
    ("1 +", 4), ("max(1, unknown)", 8), ("10 / (2 - 2)", 7),
    ("[1][null]", 4), ("'a' + 1", 5), ("1 < 2 < 'a'", 7),  # at the operator, not at column 1
])
def test_eval_error_marks_the_column(capsys, expression, column):
    code, out, err = run(capsys, "eval", expression)
    assert code == 1 and out == ""
    first, shown, caret = err.splitlines()[:3]
    assert first.startswith(f"1:{column}: MPR1")
    assert shown == f"  {expression}"
    assert caret == " " * (1 + column) + "^"


def test_eval_long_expression_shows_the_part_around_the_column(capsys):
    expression = "1 + " * 30 + "(" * 70 + "1" + ")" * 70
    code, _, err = run(capsys, "eval", expression)
    first, shown, caret = err.splitlines()[:3]
    assert code == 1 and "MPR114" in first
    column = int(first.split(":")[1])
    assert len(shown) < 80 and shown.startswith("  …") and shown.endswith("…")
    assert shown[len(caret) - 1] == expression[column - 1]  # the caret under the right character


def test_eval_unknown_name_without_variables_says_how_to_give_one(capsys):
    code, _, err = run(capsys, "eval", "x + 1")
    assert code == 1 and "MPR133" in err and "--var x=値" in err
    code, _, err = run(capsys, "eval", "x + 1", "--lang", "en")
    assert "--var x=VALUE" in err


def test_eval_caret_counts_full_width_characters(capsys):
    code, _, err = run(capsys, "eval", "知性 + ", "--var", "知性=3")
    assert code == 1
    assert err.splitlines()[2] == " " * 8 + "^"  # two wide characters, a space, '+', a space


@pytest.mark.parametrize("argv, code", [
    (["eval", "2d6", "--dice", "3"], "MPR150"),
    (["eval", "2d6", "--dice", "3,4,5"], "MPR152"),
    (["eval", "1d6", "--dice", "7"], "MPR151"),
])
def test_eval_wrong_dice(capsys, argv, code):
    status, _, err = run(capsys, *argv)
    assert status == 1 and code in err


def test_prob_json(capsys):
    code, out, _ = run(capsys, "prob", "2d6", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["mean"] == 7
    assert data["distribution"][0] == {"value": 2, "p": "1/36", "percent": 2.78}
    assert [row["value"] for row in data["distribution"]] == list(range(2, 13))
    assert sum(Fraction(row["p"]) for row in data["distribution"]) == 1


@pytest.mark.parametrize("argv, expected", [
    (["prob", "2d6 >= 7"], {"distribution": [{"value": False, "p": "5/12", "percent": 41.67},
                                             {"value": True, "p": "7/12", "percent": 58.33}],
                            "mean": None}),
    (["prob", "1d4 / 2 + bonus", "--var", "bonus=1"],
     {"distribution": [{"value": "3/2", "p": "1/4", "percent": 25.0}, {"value": 2, "p": "1/4", "percent": 25.0},
                       {"value": "5/2", "p": "1/4", "percent": 25.0}, {"value": 3, "p": "1/4", "percent": 25.0}],
      "mean": "9/4"}),
    (["prob", "metals[1d2 - 1]", "--var", "metals=[鋼, 銀]"],
     {"distribution": [{"value": "銀", "p": "1/2", "percent": 50.0}, {"value": "鋼", "p": "1/2", "percent": 50.0}],
      "mean": None}),
])
def test_prob_json_values(capsys, argv, expected):
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 0 and json.loads(out) == expected


def test_prob_text_and_svg(capsys, tmp_path):
    chart = tmp_path / "chart.svg"
    code, out, _ = run(capsys, "prob", "10 if 1d6 >= 5 else 0", "--svg", str(chart))
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:3] == ["0", "2/3", "66.67%"]
    assert lines[2].split()[:3] == ["10", "1/3", "33.33%"]
    assert lines[-1] == "平均 10/3 (3.333)"
    root = ET.fromstring(chart.read_text(encoding="utf-8"))
    bars = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{http://www.w3.org/2000/svg}title") is not None]
    assert len(bars) == 2


@pytest.mark.parametrize("argv, exit_code, code", [
    (["prob", "2d6 +"], 1, "MPR112"),
    (["prob", "100d1000 + 100d1000"], 1, "MPR160"),
    (["prob", "x + 1d6"], 1, "MPR1"),
])
def test_prob_errors(capsys, argv, exit_code, code):
    status, _, err = run(capsys, *argv)
    assert status == exit_code and code in err and "Traceback" not in err


def test_prob_rule_prints_every_table(capsys, monkeypatch, tmp_path):
    from interpreter.checks import loading as ruleset
    from interpreter.engine import runner as engine
    from interpreter.engine.trace import ProbRow, ProbTable

    calls = []

    def fake_distribution(rules, rule_id, inputs, lang="en"):
        calls.append((rules, rule_id, inputs))
        return [ProbTable("事件", [ProbRow("burglary", Fraction(1, 12), "空き巣"), ProbRow(None, Fraction(11, 12))],
                          note="note"),
                ProbTable("sum", [ProbRow(2, Fraction(1, 2)), ProbRow(4, Fraction(1, 2))], mean=Fraction(3))]

    monkeypatch.setattr(ruleset, "load_ruleset", lambda path=None: ("ruleset", path))
    monkeypatch.setattr(engine, "distribution", fake_distribution)
    chart = tmp_path / "rule.svg"
    code, out, _ = run(capsys, "prob", "cohabitation.leisure", "--var", "safety=1", "--svg", str(chart))
    assert code == 0
    assert calls == [(("ruleset", None), "cohabitation.leisure", {"safety": 1})]
    assert "cohabitation.leisure: 事件" in out and "空き巣" in out and "平均 3" in out
    assert len(ET.fromstring(chart.read_text(encoding="utf-8")).findall(
        "{http://www.w3.org/2000/svg}text")) >= 2 + 4 * 2
    code, out, _ = run(capsys, "prob", "cohabitation.leisure", "--format", "json")
    data = json.loads(out)
    assert data["rule"] == "cohabitation.leisure"
    assert data["tables"][0]["rows"][0] == {"value": "burglary", "p": "1/12", "percent": 8.33, "label": "空き巣"}
    assert data["tables"][1]["mean"] == 3


def test_prob_rule_of_the_bundled_ruleset(capsys):
    code, out, _ = run(capsys, "prob", "procurement.check", "--format", "json", "--var", "intellect=12",
                       "--var", "item={materials: [鋼], quality: 傑作, design: null, ma_gear: null, vehicle: null}")
    assert code == 0
    rows = json.loads(out)["tables"][0]["rows"]
    assert sum(Fraction(row["p"]) for row in rows) == 1
    code, _, err = run(capsys, "prob", "procurement.chek")
    assert code == 1 and "MPR401" in err and "procurement.check" in err


@pytest.mark.parametrize("text, argv, expected", [
    ("bonus: 2\n", [], {3: "1/2", 4: "1/2"}),
    ("bonus: 2\n", ["--var", "bonus=10"], {11: "1/2", 12: "1/2"}),  # --var wins over --input
    ("", ["--var", "bonus=0"], {1: "1/2", 2: "1/2"}),
])
def test_prob_input_file(capsys, tmp_path, text, argv, expected):
    source = tmp_path / "input.yaml"
    source.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "prob", "1d2 + bonus", "--input", str(source), *argv, "--format", "json")
    assert code == 0
    assert {row["value"]: row["p"] for row in json.loads(out)["distribution"]} == expected


@pytest.mark.parametrize("text, code", [("[1, 2]\n", "MPR015"), ("a: [1,\n", "MPR015")])
def test_prob_bad_input_file(capsys, tmp_path, text, code):
    source = tmp_path / "input.yaml"
    source.write_text(text, encoding="utf-8")
    status, _, err = run(capsys, "prob", "1d2", "--input", str(source))
    assert status == 1 and code in err
