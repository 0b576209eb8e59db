"""BCDice's test-data format replayed through ``mprules check``: every ``[[test]]`` of
``tests/cases/bcdice/MagicPunk.toml`` gives the input, the dice the randomizer returns and the exact
output line; ``mprules check INPUT --dice ...`` must print that line, byte for byte."""
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
