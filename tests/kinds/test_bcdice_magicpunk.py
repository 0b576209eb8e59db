"""BCDice's test-data format replayed through ``mprules check``: every ``[[test]]`` of
``tests/cases/bcdice/MagicPunk.toml`` gives the input, the dice the randomizer returns and the exact
output line; ``mprules check INPUT --dice ...`` must print that line, byte for byte. The file holds
BCDice's own MagicPunk cases (test/data/MagicPunk.toml) and the forms BCDice's preprocessor reads
(a label after a blank, a bare ``C``, parentheses, lower case, ``S``); ``REFUSED`` are command lines
BCDice does not roll, which ``check`` refuses (MPR010)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from interpreter.cli import main

DATA = Path(__file__).parents[1] / "cases" / "bcdice" / "MagicPunk.toml"
CASES = tomllib.loads(DATA.read_text(encoding="utf-8"))["test"]


def test_the_data_is_what_it_says() -> None:
    assert len(CASES) >= 20
    assert all(case["game_system"] == "MagicPunk" for case in CASES)
    assert all(rand["sides"] == 20 for case in CASES for rand in case["rands"])


@pytest.mark.parametrize("case", CASES, ids=[f"{c['input']}-{c['output']}" for c in CASES])
def test_replay(case: dict, capsysbinary) -> None:
    dice = ",".join(str(rand["value"]) for rand in case["rands"])
    code = main(["check", case["input"], "--dice", dice])
    out, err = capsysbinary.readouterr()
    assert (code, err) == (0, b"")
    assert out == (case["output"] + "\n").encode("utf-8")


# (the command line, why BCDice does not roll it)
REFUSED = [
    ("3MP(0-5)", "a negative value: 3MP-5 is not nMPm"),
    ("3MP(1/0)", "a division by zero is left as written"),
    ("(10/3u)MP5", "the rounding letter of a parenthesis is upper case only"),
    ("3MP(15", "an unclosed parenthesis"),
    ("3MP15C-1", "a negative challenge"),
    ("3MP15C10;", "the command ends at a blank, not at other marks"),
    ("3MP15X", "nothing but C may follow m"),
    ("MP", "m is needed"), ("3MP", "m is needed"), ("-1MP5", "n is not negative"),
    ("3MP(C)", "a parenthesis that is not arithmetic is left as written"),
    ("SS3MP15", "one S only"), ("", "nothing"),
]


@pytest.mark.parametrize("text, why", REFUSED, ids=[t or "empty" for t, _ in REFUSED])
def test_what_bcdice_does_not_roll_is_refused(text: str, why: str, capsys) -> None:
    assert main(["check", text, "--dice", "1,2,3"]) == 1, why
    assert "MPR010" in capsys.readouterr().err


@pytest.mark.parametrize("text, line", [
    ("３ＭＰ１５Ｃ１０　調達判定", "(3MP15C10) > [9,4,18] > 失敗"),
    ("（１＋２）ＭＰ１５", "(3MP15C0) > [9,4,18] > 成功(9)"),
])
def test_full_width_is_read_too(text: str, line: str, capsys) -> None:
    """Beyond BCDice (which reads ASCII only): a line typed with the IME still rolls."""
    assert main(["check", text, "--dice", "9,4,18"]) == 0
    assert capsys.readouterr().out == line + "\n"


def test_the_label_is_kept_beside_the_line_in_json(capsys) -> None:
    import json

    assert main(["check", "3MP15C10 調達判定", "--dice", "9,4,12", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["line"] == "(3MP15C10) > [9,4,12] > 成功(12)" and out["label"] == "調達判定"


RECORDED = Path(__file__).parents[1] / "cases" / "bcdice" / "check_forms.tsv"
LINES = [line.split("\t") for line in RECORDED.read_text(encoding="utf-8").splitlines()
         if line and not line.startswith("#")]


# Lines BCDice's MagicPunk does not roll that ``check`` reads on purpose, with what BCDice prints for
# the line as it reads it: a leading S (BCDice's secret-roll prefix; MagicPunk's own prefix pattern is
# anchored, so BCDice never matches it after an S) and a label after a full-width blank.
EXTENSIONS = {
    "S3MP15C10": ("5,19,3", "(3MP15C10) > [5,19,3] > 失敗"),
    "s3mp15": ("5,19,3", "(3MP15C0) > [5,19,3] > 成功(5)"),
    "3MP15C10\u3000全角空白": ("5,19,3", "(3MP15C10) > [5,19,3] > 失敗"),
}


def test_the_recording_covers_every_form() -> None:
    assert len(LINES) > 600
    assert sum(out == "-" for _, _, out in LINES) >= 9 and sum(out != "-" for _, _, out in LINES) >= 600


@pytest.mark.parametrize("form, dice, output", LINES, ids=[f"{i}-{f}" for i, (f, _, _) in enumerate(LINES)])
def test_what_bcdice_printed(form: str, dice: str, output: str, capsysbinary) -> None:
    """Each line BCDice rolled prints BCDice's line first, byte for byte; each it does not roll is
    refused with a code (exit 1), never a traceback, but for the few ``check`` reads on purpose."""
    if form in EXTENSIONS:
        dice, output = EXTENSIONS[form]
    args = ["check", form, "--lang", "ja"] + (["--dice", dice] if dice != "-" else ["--seed", "1"])
    code = main(args)
    out, err = capsysbinary.readouterr()
    if output == "-":
        assert code == 1 and b"MPR0" in err, (form, out, err)
    else:
        assert code == 0, (form, err)
        assert out.decode("utf-8").splitlines()[0] == output
