"""Every limit of the language, at and past its bound: hostile text is a coded error, never a
hang, a deep recursion or a huge number."""
from __future__ import annotations

from fractions import Fraction

import pytest

from rules_dsl import compile_expression, parse
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import MprError
from rules_dsl.limits import (MAX_AST_DEPTH, MAX_AST_NODES, MAX_DICE_PER_EVALUATION,
                              MAX_DICE_PER_TERM, MAX_EXPONENT, MAX_EXPRESSION_LENGTH, MAX_FACES,
                              MAX_INT_BITS, MAX_LIST_LENGTH, MAX_LOOP_NESTING,
                              MAX_STRING_LENGTH)

D = MAX_AST_DEPTH

REFUSED = [
    ("10,000 nested parentheses", "(" * 10_000 + "1" + ")" * 10_000, "MPR100"),
    ("nested parentheses within the length", "(" * 1_999 + "1" + ")" * 1_999, "MPR114"),
    ("10,000 unary minus", "-" * 10_000 + "1", "MPR100"),
    ("unary minus within the length", "-" * 3_999 + "1", "MPR114"),
    ("spaced unary minus", "- " * 1_999 + "1", "MPR114"),
    ("a run of not", "not " * 999 + "true", "MPR114"),
    ("a 1 MB expression", "1+" * 500_000 + "1", "MPR100"),
    ("a tower of powers", "2" + "**2" * 1_300, "MPR114"),
    ("a long path", "a" + ".b" * 1_900, "MPR114"),
    ("nested lists", "[" * 2_000 + "]" * 2_000, "MPR114"),
    ("nested calls", "abs(" * (D + 1) + "1" + ")" * (D + 1), "MPR114"),
    ("too many nodes", "[" + ",".join(["-1"] * (MAX_AST_NODES // 2 + 1)) + "]", "MPR115"),
    ("a long flat sum", "+".join(["1"] * (D + 2)), "MPR114"),
    ("a huge literal", "9" * 3_000, "MPR116"),
    ("too many dice", f"{MAX_DICE_PER_TERM + 1}d6", "MPR120"),
    ("a billion dice", "1000000000d6", "MPR120"),
    ("too many faces", f"d{MAX_FACES + 1}", "MPR121"),
    ("an absurd die", "1d" + "9" * 100, "MPR121"),
    ("d0", "d0", "MPR122"),
    ("0d0", "0d0", "MPR122"),
    ("0d6", "0d6", "MPR123"),
    ("NUL", "1 + \x00", "MPR101"),
]


@pytest.mark.parametrize("label,text,code", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_before_evaluation(label: str, text: str, code: str) -> None:
    with pytest.raises(MprError) as caught:
        compile_expression(text)
    assert caught.value.code == code
    assert caught.value.loc is not None and caught.value.loc.column is not None


# (expression at a bound, the dice rolled, its value worked out by hand)
AT_THE_BOUND = [
    ("(" * D + "1" + ")" * D, [], 1),  # D brackets around 1
    ("-" * (D - 1) + "1", [], -1),  # an odd number (D - 1 = 63) of negations
    ("[" + ",".join(["1"] * 500) + "]", [], [1] * 500),
    (f"{MAX_DICE_PER_TERM}d{MAX_FACES}", [MAX_FACES] * MAX_DICE_PER_TERM, MAX_DICE_PER_TERM * MAX_FACES),
    (f"{MAX_DICE_PER_TERM}d{MAX_FACES}", list(range(1, MAX_DICE_PER_TERM + 1)),
     MAX_DICE_PER_TERM * (MAX_DICE_PER_TERM + 1) // 2),  # 1 + 2 + ... + 100
    ("+".join(["1"] * (D - 1)), [], D - 1),
    ("1" + " " * (MAX_EXPRESSION_LENGTH - 1), [], 1),
]


@pytest.mark.parametrize("text,dice,expected", AT_THE_BOUND)
def test_accepted_at_the_bound(text: str, dice: list[int], expected: object) -> None:
    script = ScriptedDice(dice)
    assert compile_expression(text).evaluate({}, script) == expected
    assert script.unused == []  # every scripted die was rolled: N of NdM is the full bound


EVALUATION = [
    ("9**9**9", {}, "MPR144"),
    (f"2 ** {MAX_EXPONENT + 1}", {}, "MPR144"),
    ("n ** 64", {"n": 2 ** 10}, "MPR143"),
    ("n * n", {"n": 2 ** (MAX_INT_BITS - 10)}, "MPR143"),
    ("(n / 3) ** 64", {"n": 2 ** 8}, "MPR143"),
    ("s + s", {"s": "x" * MAX_STRING_LENGTH}, "MPR149"),
    ("l + l", {"l": [0] * MAX_LIST_LENGTH}, "MPR149"),
    ("1 / 0", {}, "MPR141"),
]


@pytest.mark.parametrize("text,env,code", EVALUATION)
def test_refused_at_evaluation(text: str, env: dict, code: str) -> None:
    with pytest.raises(MprError) as caught:
        compile_expression(text).evaluate(env)
    assert caught.value.code == code


def test_power_at_the_bound() -> None:
    assert compile_expression("(2 ** 63) ** 4").evaluate({}) == 2 ** 252
    with pytest.raises(MprError) as caught:
        compile_expression("(2 ** 64) ** 4").evaluate({})
    assert caught.value.code == "MPR143"


def test_dice_per_evaluation() -> None:
    terms = MAX_DICE_PER_EVALUATION // MAX_DICE_PER_TERM + 1
    text = f"sum([{', '.join([f'{MAX_DICE_PER_TERM}d6'] * terms)}])"
    with pytest.raises(MprError) as caught:
        compile_expression(text).evaluate({}, SeededDice(3))
    assert caught.value.code == "MPR153"


def test_too_few_scripted_dice_names_the_die() -> None:
    with pytest.raises(MprError) as caught:
        compile_expression("d20 + d20").evaluate({}, ScriptedDice([5]))
    assert caught.value.code == "MPR150"
    assert "d20" in caught.value.message("en")


def test_parse_of_the_longest_text_is_bounded() -> None:
    text = "[" + ",".join(["x"] * (MAX_AST_NODES - 1)) + "]"
    assert len(text) <= MAX_EXPRESSION_LENGTH
    assert len(parse(text).items) == MAX_AST_NODES - 1


LOOPS = MAX_LOOP_NESTING
ROUNDS_SIDE = 315  # 315 outer rounds + 315 * 315 inner ones = 99,540; with 316: 100,172



def _fors(n: int, first: int = 0) -> str:
    return "".join(f" for v{i} in xs" for i in range(first, first + n))


LOOP_CASES = [
    # (text, env, expected value or error code)
    ("[1" + _fors(LOOPS) + "]", {"xs": [0]}, [1]),
    ("[1" + _fors(LOOPS + 1) + "]", {"xs": [0]}, "MPR125"),
    ("[[1" + _fors(LOOPS - 1, 1) + "] for v0 in xs]", {"xs": [0]}, [[1]]),
    ("[[1" + _fors(LOOPS, 1) + "] for v0 in xs]", {"xs": [0]}, "MPR125"),
    ("count(1 for a in range(n) for b in range(n))", {"n": ROUNDS_SIDE}, ROUNDS_SIDE ** 2),
    ("count(1 for a in range(n) for b in range(n))", {"n": ROUNDS_SIDE + 1}, "MPR134"),
    ("count(1 for a in range(n) for b in [count(1 for c in range(n))])", {"n": 10_000}, "MPR134"),
    ("sum([count(1 for b in range(n)) for a in range(n)])", {"n": ROUNDS_SIDE + 1}, "MPR134"),
    (f"len([1 for a in range({MAX_LIST_LENGTH})])", {}, MAX_LIST_LENGTH),
    (f"len([1 for a in range({MAX_LIST_LENGTH + 1})])", {}, "MPR126"),
    (f"len([1 for a in range({MAX_LIST_LENGTH}) for b in [1, 2]])", {}, "MPR149"),
]


@pytest.mark.parametrize("text,env,expected", LOOP_CASES)
def test_loop_limits_at_and_past_the_bound(text: str, env: dict, expected) -> None:
    if isinstance(expected, str):
        with pytest.raises(MprError) as caught:
            compile_expression(text).evaluate(env)
        assert caught.value.code == expected
        assert caught.value.loc is not None and caught.value.loc.column is not None
    else:
        assert compile_expression(text).evaluate(env) == expected


BIG = 2 ** MAX_INT_BITS - 1  # the largest whole number within the bound
SMALL = 2 ** 30 - 1  # the largest whole number the generated code computes with unchecked
PRIMES = [p for p in range(2, 2_000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]

INTEGER_BOUND = [
    # (text, env, value within the bound or the code past it)
    ("x + 0", {"x": BIG}, BIG), ("x + 1", {"x": BIG}, "MPR143"), ("x + x", {"x": BIG}, "MPR143"),
    ("1 + x", {"x": BIG - 1}, BIG), ("x - y", {"x": -BIG, "y": 1}, "MPR143"),
    ("0 - x - x", {"x": BIG}, "MPR143"), ("x / 1", {"x": BIG}, BIG),
    ("1" + "/1000000007" * 8, {}, Fraction(1, 1_000_000_007 ** 8)),
    ("1" + "/1000000007" * 9, {}, "MPR143"),
    ("x // (1/2)", {"x": BIG}, "MPR143"), ("x % (1 / y)", {"x": Fraction(1, 3), "y": BIG - 4}, "MPR143"),
    ("sum(xs)", {"xs": [BIG, 0]}, BIG), ("sum(xs)", {"xs": [BIG, 1]}, "MPR129"),
    ("sum(1 / p for p in ps)", {"ps": PRIMES}, "MPR129"),
    ("sum([1 / p for p in ps]) + 0", {"ps": PRIMES[:20]}, None),
    ("let h = x in h + h", {"x": BIG}, "MPR143"),
    # whole numbers the generated code takes as small (one CPython digit), at and past the bound
    ("x * x * x * x * x * x * x * x * y", {"x": SMALL, "y": 2 ** 15}, SMALL ** 8 * 2 ** 15),
    ("x * x * x * x * x * x * x * x * y", {"x": SMALL, "y": 2 ** 17}, "MPR143"),
    ("x * x * x * x * x * x * x * x * x", {"x": SMALL}, "MPR143"),
    ("(x * x * x * x * x * x * x * x * x + z) - z", {"x": -SMALL, "z": 1}, "MPR143"),
    ("abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * 32768", {"x": -SMALL},
     SMALL ** 8 * 32768),
    ("abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * abs(x) * 65536", {"x": -SMALL},
     "MPR143"),
    ("sum(r * x * x * x * x * x * x * x for r in xs)", {"x": SMALL, "xs": [SMALL] * 3}, 3 * SMALL ** 8),
    ("sum(r * x * x * x * x * x * x * x for r in xs) * 8", {"x": SMALL, "xs": [SMALL] * 3}, 24 * SMALL ** 8),
    ("sum(r * x * x * x * x * x * x * x * 4 for r in xs) * 65536", {"x": SMALL, "xs": [SMALL] * 3},
     "MPR143"),
    ("x * x * x * x * x * x * x * x * 65535 + x * x * x * x * x * x * x * x * 65535", {"x": SMALL},
     "MPR143"),
    ("sum(x * x * x * x * x * x * x * x * 31 for r in range(3000))", {"x": SMALL}, "MPR129"),
    ("sum(x * x * x * x * x * x * x * x * 31 for r in range(2000))", {"x": SMALL},
     2000 * 31 * SMALL ** 8),
    ("max(x, 1) * max(x, 2) * min(x, y) * clamp(x, 0, y) * x * x * x * x * 4", {"x": SMALL, "y": SMALL},
     SMALL ** 8 * 4),
]


@pytest.mark.parametrize("text,env,expected", INTEGER_BOUND)
def test_integer_bound_holds_for_every_operation(text: str, env: dict, expected) -> None:
    expression = compile_expression(text)
    evaluations = (expression.evaluate, expression._fn)  # the generated code and the closures
    for evaluate in evaluations:
        if isinstance(expected, str):
            with pytest.raises(MprError) as caught:
                evaluate(env, None)
            assert caught.value.code == expected
            assert caught.value.loc is not None and caught.value.loc.column is not None
        else:
            value = evaluate(env, None)
            assert expected is None or value == expected
            for number in (value.numerator, value.denominator) if isinstance(value, Fraction) \
                    else (value,):
                assert number.bit_length() <= MAX_INT_BITS


REFUSED_BEFORE_WORK = [
    "min([d1000/7, d1000/7, d1000/7]) + max([d1000/7, d1000/7, d1000/7])",
    "d1000 * d1000 * d1000",
    "let x = d1000 in let y = d1000 in let z = d1000 in x + y + z",
    "d1000 / d999 + d998 / d997",
    "sum(x for x in [d1000 / 3, d1000 / 7, d1000 / 11])",
]


@pytest.mark.parametrize("text", REFUSED_BEFORE_WORK)
def test_prob_refuses_before_spending_work(text: str, monkeypatch) -> None:
    from rules_dsl import prob

    spent: list[int] = []
    monkeypatch.setattr(prob._Prob, "_charge", lambda self, pairs: spent.append(pairs))
    with pytest.raises(MprError) as caught:
        compile_expression(text).distribution({})
    assert caught.value.code == "MPR160" and spent == []
