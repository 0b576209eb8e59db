"""The command line in the GM's language and at the table: ``--help`` and argparse's usage errors
follow ``--lang``/``LANG`` (coded, exit 2); expressions that start with ``-`` are expressions;
a division shows its rounded-down value; ``prob --svg`` says where it wrote; widths are measured."""
from __future__ import annotations

import re
import unicodedata

import pytest

from interpreter.cli import build_parser, main
from interpreter.cli._expr import display_width
from interpreter.cli._i18n import HELP_JA, help_texts
from interpreter.reports.svg import Section, render, text_width


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # --help
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


VERBS = ["validate", "test", "run", "check", "eval", "prob", "diff", "doc", "export", "campaign",
         "campaign init", "campaign sleep"]


def _has_japanese(text: str) -> bool:
    return any(unicodedata.east_asian_width(c) in "WF" for c in text)


@pytest.mark.parametrize("verb", VERBS)
def test_help_of_every_verb_follows_lang(capsys, verb: str) -> None:
    code, out, _ = run(capsys, "--lang", "ja", *verb.split(), "--help")
    assert code == 0
    assert out.startswith("使い方: mprules") and "オプション:" in out and "このヘルプを表示して終了します" in out
    code, out, _ = run(capsys, "--lang", "en", *verb.split(), "--help")
    assert out.startswith("usage: mprules") and not _has_japanese(out.replace("傑作", ""))


def test_help_follows_the_environment(capsys, monkeypatch) -> None:
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("MPRULES_LANG", raising=False)
    code, out, _ = run(capsys, "eval", "--help")
    assert out.startswith("使い方: ") and "式（例: 2d6+1、-1+2d6）" in out


def test_every_help_text_has_a_japanese_rendering() -> None:
    missing = sorted(set(help_texts(build_parser("en"))) - set(HELP_JA))
    assert missing == []


@pytest.mark.parametrize("argv, ja, en", [
    (["eval"], "次の引数が必要です: EXPR", "the following arguments are required: EXPR"),
    (["validate", "--format", "xml"], "'xml' は選べません", "invalid choice: 'xml'"),
    (["eval", "1", "--seed", "x"], "'x' は int の値として読めません", "invalid int value: 'x'"),
    (["eval", "1", "--bogus"], "知らない引数です: --bogus", "unrecognized arguments: --bogus"),
    (["no-such-verb"], "'no-such-verb' は選べません", "invalid choice: 'no-such-verb'"),
])
def test_usage_errors_follow_lang(capsys, argv, ja: str, en: str) -> None:
    code, out, err = run(capsys, "--lang", "ja", *argv)
    assert (code, out) == (2, "")
    assert "MPR001" in err and ja in err
    code, _, err = run(capsys, *argv, "--lang", "en")
    assert code == 2 and "MPR001" in err and en in err


@pytest.mark.parametrize("argv, line", [
    (["eval", "-2d6", "--dice", "3,4"], "(-2d6) > [3,4] > -7"),
    (["eval", "-1+2d6", "--dice", "3,4"], "(-1+2d6) > [3,4] > 6"),
    (["eval", "--dice", "3,4", "-1+2d6"], "(-1+2d6) > [3,4] > 6"),
    (["eval", "-(1+2)"], "(-(1+2)) > -3"),
    (["eval", "-d6", "--dice", "5"], "(-d6) > [5] > -5"),
    (["eval", "7/2"], "(7/2) > 7/2 (切り捨て 3)"),
    (["eval", "7/2", "--lang", "en"], "(7/2) > 7/2 (rounded down 3)"),
    (["eval", "-7/2"], "(-7/2) > -7/2 (切り捨て -4)"),
    (["eval", "6/2"], "(6/2) > 3"),
])
def test_eval_at_the_table(capsys, argv, line: str) -> None:
    code, out, _ = run(capsys, "--lang", "ja", *argv)
    assert (code, out) == (0, line + "\n")


def test_prob_svg_says_where_it_wrote(capsys, tmp_path) -> None:
    target = tmp_path / "chart.svg"
    code, out, err = run(capsys, "--lang", "ja", "prob", "2d6", "--svg", str(target))
    assert code == 0 and target.read_text(encoding="utf-8").startswith("<svg")
    assert str(target) in err and "書きました" in err and str(target) not in out


@pytest.mark.parametrize("text, width", [
    ("", 0), ("abc", 3), ("平均", 4), ("2d6 平均", 8), ("ＡＢ", 4), ("ｱｲ", 2)])
def test_display_width(text: str, width: int) -> None:
    assert display_width(text) == width


@pytest.mark.parametrize("title, labels", [
    ("調達判定のとても長い見出し: 魔煌の希少度が上がると成功率がどう動くか、ダイスごとに", ["1"]),
    ("t", ["七 大成功（クリティカル）: 報酬が倍になり、次の判定にボーナス", "2"]),
])
def test_svg_fits_its_labels(title: str, labels: list[str]) -> None:
    svg = render([Section(title, [(label, 0.5) for label in labels])])
    width = float(re.search(r'width="(\d+)"', svg).group(1))
    assert width >= text_width(title, 15) + 24
    assert "…" not in svg
    assert text_width("全角") == 2 * text_width("MM") / 1.2


def test_a_bad_number_of_hours_is_a_usage_error_in_both_languages(capsys) -> None:
    argv = ["campaign", "sleep", "x.db", "rin", "--hours", "abc"]
    code, out, err = run(capsys, "--lang", "ja", *argv)
    assert (code, out) == (2, "") and "MPR053" in err and "有限の時間数" in err
    code, _, err = run(capsys, *argv, "--lang", "en")
    assert code == 2 and "MPR053" in err and "a finite number of hours" in err


# Every part of a --var or --input error is said in the GM's language: the detail, and the code
# and message of the YAML error inside it (these details were English in Japanese messages).
@pytest.mark.parametrize("argv, ja, en", [
    (["eval", "x", "--var", "x={a: [1"], "MPR206 YAML の構文エラー", "MPR206 YAML syntax error"),
    (["eval", "x", "--var", "a..b=1"], "'a..b' に空の名前があります", "empty name in 'a..b'"),
    (["eval", "x", "--var", "x=1", "--var", "x.y=2"], "'x' はもう値なので", "'x' is already a value"),
    (["eval", "x", "--var", "=1"], "'=1' に 名前= がありません", "no NAME= in '=1'"),
    (["eval", "x", "--var", "x=.nan"], "MPR216 .nan は有限の数ではありません", "MPR216 .nan is not a finite number"),
])
def test_var_errors_follow_lang(capsys, argv, ja, en) -> None:
    code, _, err = run(capsys, "--lang", "ja", *argv)
    assert code == 2 and "MPR013" in err and ja in err
    assert not re.search(r"[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}", err.split("MPR013", 1)[1].replace("YAML", ""))
    code, _, err = run(capsys, "--lang", "en", *argv)
    assert code == 2 and en in err
