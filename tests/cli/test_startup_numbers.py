"""Which of ``fractions`` (with ``decimal``), and ``random`` a command loads: ``fractions`` only with
the first non-whole number (a division that does not come out even, a decimal ``--var``, the hint
for a decimal literal), ``random`` only when a seeded source gives a die.
Module sets of a fresh interpreter, never timings (the style of ``test_startup.py``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("fractions", "decimal", "random")
FRACTIONS = {"fractions", "decimal"}


def _loaded(argv: list[str], tmp_path: Path) -> tuple[int, set[str]]:
    code = ("import sys, json; from interpreter.cli import main; status = main(%r); "
            "print(json.dumps([status, sorted(sys.modules)]))" % (argv,))
    env = dict(os.environ, MPRULES_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # the first run may fill the cache
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=ROOT, env=env)
    status, modules = json.loads(out.stdout.strip().splitlines()[-1])
    return status, {name for name in modules if name in WATCHED}


@pytest.mark.parametrize("argv, status, expected", [
    (["eval", "1+1"], 0, set()),
    (["eval", "1+1", "--seed", "3"], 0, set()),  # a seed, but no die: the generator is not made
    (["eval", "'a' + 'b' < 'c'"], 0, set()),
    (["eval", "6/3 + floor(7/2) + round(x)", "--var", "x=3"], 0, set()),  # every number whole
    (["eval", "2d6", "--dice", "3,4"], 0, set()),  # the dice rolled at the table
    (["eval", "2d6 + 1", "--seed", "1"], 0, {"random"}),
    (["eval", "2d6"], 0, {"random"}),  # no seed: one is drawn, and the dice rolled from it
    (["eval", "7/2"], 0, FRACTIONS),
    (["eval", "x * 2", "--var", "x=0.5"], 0, FRACTIONS),  # a YAML float read exactly
    (["eval", "1.5"], 1, FRACTIONS),  # the error writes the fraction to use instead
    (["check", "2MP12", "--dice", "5,9"], 0, set()),
    (["check", "2MP12", "--seed", "1"], 0, {"random"}),
])
def test_a_command_loads_fractions_and_random_only_when_it_needs_them(argv, status, expected,
                                                                      tmp_path) -> None:
    assert _loaded(argv, tmp_path) == (status, expected)
