"""``fractions`` loads with the first non-whole number, yet a Fraction that comes from outside the
expression engine (a caller's parameter made after the engine was loaded, before anything in it
saw ``fractions``) is treated exactly as before: same values, same kinds, same error messages.

Each table runs in a fresh interpreter (``sys.executable -c``), where nothing imported
``fractions`` before the expressions were compiled; its answers must equal the ones given in this
process and the expected values written here."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rules_dsl import compile_expression
from rules_dsl.errors import MprError

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["f", "g", "h", "xs"]

# (expression, expected value or error code): f = 7/2, g = 1/3, h = Fraction(4) (whole), xs = [1, 2]
CASES = [
    ("f + 1", Fraction(9, 2)), ("f + g", Fraction(23, 6)), ("f - f", 0), ("f * 2", 7),
    ("f / g", Fraction(21, 2)), ("f // 1", 3), ("f % 1", Fraction(1, 2)), ("f ** 2", Fraction(49, 4)),
    ("g ** -2", 9), ("-f", Fraction(-7, 2)), ("+f", Fraction(7, 2)), ("h + 0", 4), ("h", Fraction(4)),
    ("f > 3", True), ("f * 2 == 7", True), ("f < g", False), ("1 <= f <= 4", True), ("f == h", False),
    ("f in [f]", True), ("f if true else 1", Fraction(7, 2)), ("[f][0]", Fraction(7, 2)),
    ("floor(f)", 3), ("ceil(f)", 4), ("round(f)", 4), ("round(-f)", -4), ("round(g)", 0),
    ("abs(-f)", Fraction(7, 2)), ("min(f, 4)", Fraction(7, 2)), ("max([f, g, 1])", Fraction(7, 2)),
    ("clamp(f, 1, 3)", 3), ("sum([f, f])", 7), ("sum(x for x in [f, g])", Fraction(23, 6)),
    ("sorted([f, g, 1])", [Fraction(1, 3), 1, Fraction(7, 2)]), ("join([f, h], ',')", "7/2,4"),
    ("count([f, g], f)", 1), ("unique([f, f])", [Fraction(7, 2)]), ("floor(f / g)", 10),
    ("2 ** f", "MPR142"), ("f < 'a'", "MPR142"), ("f + 'a'", "MPR142"), ("'a' + f", "MPR142"),
    ("f.a", "MPR142"), ("xs[f]", "MPR142"), ("f and true", "MPR148"), ("not f", "MPR148"),
    ("len(f)", "MPR170"), ("range(f)", "MPR170"), ("any([f])", "MPR170"), ("f / 0", "MPR141"),
    ("[x for x in f]", "MPR128"),
]
CASES_JSON = [[text, None] for text, _ in CASES]  # the expected values stay here

# Python calls of the engine's own functions, each met first by the Fraction (no fallback retries)
HELPERS = [
    ("kind(f)", "'number'"), ("kind(h)", "'number'"), ("is_number(f)", "True"),
    ("is_number(True)", "False"), ("is_fraction(g)", "True"), ("simplest(h)", "4"),
    ("simplest(f)", "Fraction(7, 2)"), ("exact(f)", "Fraction(7, 2)"), ("jsonable(f)", "'7/2'"),
    ("jsonable(h)", "4"), ("operators.add(f, 1)", "Fraction(9, 2)"), ("operators.sub(f, f)", "0"),
    ("operators.div(f, g)", "Fraction(21, 2)"), ("operators.negate(f)", "Fraction(-7, 2)"),
    ("operators.COMPARE['<'](g, f)", "True"), ("fn_round(f)", "4"), ("fn_max(f, g)", "Fraction(7, 2)"),
    ("fn_sum([f, h])", "Fraction(15, 2)"), ("fn_join([f, h], ',')", "'7/2,4'"),
    ("fn_sorted([f, g])", "[Fraction(1, 3), Fraction(7, 2)]"),
]

_SCRIPT = """
import json, sys
from rules_dsl import compile_expression, functions, operators
from rules_dsl.errors import MprError
from rules_dsl.functions import (exact, fn_join, fn_max, fn_round, fn_sorted, fn_sum, is_fraction,
                                 is_number, kind, simplest)
from rules_dsl.plain import jsonable
cases, names, helpers = json.loads(sys.argv[1])
compiled = [compile_expression(text, names=set(names)) for text, _ in cases]
assert "fractions" not in sys.modules, "compiling loaded fractions"
from fractions import Fraction  # the caller's, after the engine is loaded
env = {"f": Fraction(7, 2), "g": Fraction(1, 3), "h": Fraction(4), "xs": [1, 2]}
def fresh():  # as if no check of the engine had found fractions loaded yet
    functions._FRACTION, functions._UNSEEN = functions._NotLoaded, True
out = []
for expression in compiled:
    fresh()
    try:
        out.append(["value", repr(expression.evaluate(env))])
    except MprError as error:
        out.append(["error", error.code, error.message("en"), error.message("ja")])
shown = []
for call in helpers:
    fresh()
    shown.append(repr(eval(call, globals(), env)))
print(json.dumps([out, shown]))
"""


def _outcome(text: str, env: dict[str, object]) -> list[str]:
    try:
        return ["value", repr(compile_expression(text, names=set(NAMES)).evaluate(env))]
    except MprError as error:
        return ["error", error.code, error.message("en"), error.message("ja")]


@pytest.fixture(scope="module")
def fresh_process() -> tuple[list[list[str]], list[str]]:
    done = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps([CASES_JSON, NAMES, [call for call, _ in HELPERS]])],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    answers, shown = json.loads(done.stdout)
    return answers, shown


@pytest.mark.parametrize("i", range(len(CASES)), ids=[text for text, _ in CASES])
def test_a_fraction_from_outside_is_treated_as_before(i: int, fresh_process) -> None:
    text, expected = CASES[i]
    answers, _ = fresh_process
    env = {"f": Fraction(7, 2), "g": Fraction(1, 3), "h": Fraction(4), "xs": [1, 2]}
    here = _outcome(text, env)
    assert answers[i] == here
    if isinstance(expected, str) and expected.startswith("MPR"):
        assert here[:2] == ["error", expected]
    else:
        assert here == ["value", repr(expected)]


def test_the_engine_functions_recognise_a_fraction_they_never_loaded(fresh_process) -> None:
    _, shown = fresh_process
    assert dict(zip([call for call, _ in HELPERS], shown)) == dict(HELPERS)


_FLOAT = """
import sys
from rules_dsl import compile_expression
expression = compile_expression("z * 2 + n", names={"z", "n"})
assert expression.evaluate({"z": 3, "n": 1}) == 7
assert "fractions" not in sys.modules, "a whole-number evaluation loaded fractions"
value = expression.evaluate({"z": 0.25, "n": 1})  # a YAML float: read as its decimal text
print(repr(value), "fractions" in sys.modules)
"""


def test_a_float_from_yaml_loads_fractions_when_it_arrives() -> None:
    done = subprocess.run([sys.executable, "-c", _FLOAT], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Fraction(3,", "2)", "True"]
