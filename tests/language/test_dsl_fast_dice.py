"""The generated code of expressions that roll dice rolls exactly what the closures roll: the same
dice in the same order, the same value or the same located error, also when it hands over to the
closures halfway (a value of another kind, a script too short) after rolling some dice already."""
from __future__ import annotations

from fractions import Fraction

import pytest

from rules_dsl import compile_expression
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import Location, MprError

CASES = [
    # (text, env, dice script or None for a seed)
    ("2d6 + x", {"x": 1}, [3, 4]),
    ("2d6 + x", {"x": Fraction(1, 2)}, [3, 4]),  # hands over after rolling: the same two dice
    ("2d6 + x", {"x": "a"}, [3, 4]),  # MPR142 after rolling
    ("d6 + d6 + x", {"x": 2 ** 300}, [1, 2]),  # MPR143 after rolling
    ("d66 if x > 2 else clamp(d20, 1, 5)", {"x": 3}, [6, 1]),
    ("d66 if x > 2 else clamp(d20, 1, 5)", {"x": 1}, [17]),
    ("d66 if x > 2 else clamp(d20, 1, 5)", {"x": True}, [17]),  # MPR142 before any die
    ("3d6 + 2d6", {}, [1, 2, 3, 4]),  # MPR150 in the middle of a roll
    ("d6 + d6", {}, [1, 7]),  # MPR151
    ("x < d6 <= 4 and d20 > 10", {"x": 2}, [3, 15]),
    ("x < d6 <= 4 and d20 > 10", {"x": 5}, [3, 15]),  # the chain stops: one die rolled
    ("let r = 2d6 in r * r - x", {"x": 1}, None),
    ("max(d6, x) + min(d6, 3) + floor(d20 / 3)", {"x": 4}, None),
    ("2d6 + x", {"x": 1}, "none"),  # MPR145
]


def _outcome(evaluate, env, script):
    dice = None if script == "none" else SeededDice(7) if script is None else ScriptedDice(script)
    try:
        value = evaluate(env, dice)
        result = ("value", value, type(value))
    except MprError as error:
        result = ("error", error.code, error.loc)
    return result, None if dice is None else [(d.faces, d.value) for d in dice.rolled]


@pytest.mark.parametrize("origin", [None, Location("rules.yaml", 4, 9)])
@pytest.mark.parametrize("text,env,script", CASES)
def test_generated_dice_code_rolls_what_the_closures_roll(text, env, script, origin) -> None:
    expression = compile_expression(text, origin)
    assert "evaluate" in vars(expression)  # the generated function, not the closures
    assert _outcome(expression.evaluate, env, script) == _outcome(expression._fn, env, script)
