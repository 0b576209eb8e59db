"""Exact distributions of expressions (rules_dsl.prob): known tables, and agreement with a brute
force that runs the evaluator itself on every possible sequence of dice."""
from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_dsl import compile_expression
from rules_dsl.dice import DiceSource
from rules_dsl.errors import MprError
from rules_dsl.prob import distribution


def dist(text: str, **env) -> dict:
    return dict(distribution(compile_expression(text, names=set(env)), env).items())


def product_table(faces: list[int], f) -> dict:
    """{f(dice): probability} over every tuple of independent dice of the given faces."""
    out: dict = {}
    total = 1
    for n in faces:
        total *= n
    for dice in itertools.product(*(range(1, n + 1) for n in faces)):
        key = f(*dice)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, total)
    return out


EXPECTED = [
    ("2d6", {}, product_table([6, 6], lambda a, b: a + b)),
    ("d66", {}, {10 * a + b: Fraction(1, 36) for a in range(1, 7) for b in range(1, 7)}),
    ("clamp(3d6, 6, 15)", {}, product_table([6, 6, 6], lambda a, b, c: min(max(a + b + c, 6), 15))),
    ("10 if 1d6 >= 5 else 0", {}, {10: Fraction(1, 3), 0: Fraction(2, 3)}),
    ("2d6 >= 7", {}, {True: Fraction(7, 12), False: Fraction(5, 12)}),
    ("max(1d6, 1d6)", {}, {k: Fraction(2 * k - 1, 36) for k in range(1, 7)}),
    ("min(2d6, 7)", {}, product_table([6, 6], lambda a, b: min(a + b, 7))),
    ("d20 + bonus", {"bonus": 3}, {k + 3: Fraction(1, 20) for k in range(1, 21)}),
    ("floor(1d6 / 2)", {}, {0: Fraction(1, 6), 1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 6)}),
    ("1d4 / 2", {}, {Fraction(1, 2): Fraction(1, 4), 1: Fraction(1, 4), Fraction(3, 2): Fraction(1, 4),
                     2: Fraction(1, 4)}),
    ("1d6 > 3 and 1d6 > 3", {}, {True: Fraction(1, 4), False: Fraction(3, 4)}),
    ("1d6 == 6 or 1d6 == 6", {}, {True: Fraction(11, 36), False: Fraction(25, 36)}),
    ("not 1d4 == 1", {}, {True: Fraction(3, 4), False: Fraction(1, 4)}),
    ("sum([1d6, 1d6])", {}, product_table([6, 6], lambda a, b: a + b)),
    ("abs(1d6 - 1d6)", {}, product_table([6, 6], lambda a, b: abs(a - b))),
    ("1 <= 2d6 - 5 < 4", {}, product_table([6, 6], lambda a, b: 1 <= a + b - 5 < 4)),
    ("1d6 * 0", {}, {0: Fraction(1)}),
    ("metals[1d2 - 1]", {"metals": ["鋼", "銀"]}, {"鋼": Fraction(1, 2), "銀": Fraction(1, 2)}),
    ("region.safety + 2d6", {"region": {"safety": -1}}, product_table([6, 6], lambda a, b: a + b - 1)),
    ("1d6 if safe else 1d6 - 6", {"safe": False}, {k - 6: Fraction(1, 6) for k in range(1, 7)}),
    ("round(1d3 / 2)", {}, {1: Fraction(2, 3), 2: Fraction(1, 3)}),  # halves away from zero
    ("max(1d6, 1d6, 1d6)", {}, product_table([6, 6, 6], max)),
    ("min([1d4, 1d4, 2])", {}, product_table([4, 4], lambda a, b: min(a, b, 2))),
    ("any([1d6 == 6, 1d6 == 6, 1d6 == 6])", {}, {True: Fraction(91, 216), False: Fraction(125, 216)}),
    ("count([1d2 == 1, 1d2 == 1])", {}, {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}),
    ("7", {}, {7: Fraction(1)}),
    ("100d1", {}, {100: Fraction(1)}),
]


@pytest.mark.parametrize("text, env, expected", EXPECTED)
def test_known_distribution(text, env, expected):
    got = dist(text, **env)
    assert got == expected
    assert sum(got.values()) == 1


def test_dice_in_a_list_fold_like_one_term():
    twelve = ", ".join(["1d6"] * 12)
    assert distribution(compile_expression(f"sum([{twelve}])"), {}) == \
        distribution(compile_expression("12d6"), {})


def test_large_sum_is_exact_and_complete():
    d = distribution(compile_expression("100d6"), {})
    assert len(d) == 501 and d.total() == 1
    assert d[100] == Fraction(1, 6 ** 100) and d.mean() == 350


@pytest.mark.parametrize("text, code", [
    ("100d1000 + 100d1000", "MPR160"),  # 10^10 combinations: refused before any work
    ("6 / (1d6 - 1)", "MPR141"),  # a roll of 1 divides by zero, as the evaluator would
    ("1 if 1d2 else 2", "MPR148"),  # a condition needs true/false
    ("1d2 == 1 if 1d2 == 1 else 1", "MPR190"),  # true and 1 cannot be told apart
])
def test_refused(text, code):
    with pytest.raises(MprError) as info:
        distribution(compile_expression(text), {})
    assert info.value.code == code


class _Path(DiceSource):
    """Gives the dice of a prefix, then 1s: one path of the tree of every possible roll."""

    def __init__(self, prefix: list[int]) -> None:
        super().__init__()
        self.prefix = prefix

    def _next(self, faces: int) -> int:
        i = len(self.rolled)
        return self.prefix[i] if i < len(self.prefix) else 1


def enumerate_rolls(text: str, env: dict) -> dict:
    """The distribution by running the evaluator on every sequence of dice it can ask for."""
    expression = compile_expression(text, names=set(env))
    out: dict = {}
    prefix: list[int] = []
    while True:
        source = _Path(prefix)
        value = expression.evaluate(env, source)
        p = Fraction(1)
        for die in source.rolled:
            p /= die.faces
        key = tuple(value) if isinstance(value, list) else value
        out[key] = out.get(key, Fraction(0)) + p
        dice = source.rolled
        i = len(dice) - 1
        while i >= 0 and dice[i].value == dice[i].faces:
            i -= 1
        if i < 0:
            return out
        prefix = [d.value for d in dice[:i]] + [dice[i].value + 1]


LEAVES = ["d2", "d3", "2d3", "d4", "0", "1", "2", "3", "k"]


def _numbers(inner):
    pair = st.tuples(inner, inner)
    return st.one_of(
        st.builds(lambda ab, op: f"({ab[0]} {op} {ab[1]})", pair, st.sampled_from(["+", "-", "*", "//"])),
        st.builds(lambda ab, f: f"{f}({ab[0]}, {ab[1]})", pair, st.sampled_from(["min", "max"])),
        st.builds(lambda abc, f: f"{f}([{abc[0]}, {abc[1]}, {abc[2]}])", st.tuples(inner, inner, inner),
                  st.sampled_from(["sum", "min", "max"])),
        st.builds(lambda abc, f: f"{f}({abc[0]}, {abc[1]}, {abc[2]})", st.tuples(inner, inner, inner),
                  st.sampled_from(["min", "max"])),
        st.builds(lambda a: f"abs({a} - 2)", inner),
        st.builds(lambda a: f"clamp({a}, 1, 4)", inner),
        st.builds(lambda a: f"floor({a} / 2)", inner),
        st.builds(lambda abc: f"({abc[0]} if {abc[2]} >= 2 else {abc[1]})", st.tuples(inner, inner, inner)),
    )


NUMBERS = st.recursive(st.sampled_from(LEAVES), _numbers, max_leaves=5)
BOOLEANS = st.one_of(
    st.builds(lambda a, b, op: f"{a} {op} {b}", NUMBERS, NUMBERS, st.sampled_from([">=", "==", "<", "!="])),
    st.builds(lambda a, b, op: f"({a} >= 2) {op} ({b} < 3)", NUMBERS, NUMBERS, st.sampled_from(["and", "or"])),
    st.builds(lambda a: f"not {a} > 2", NUMBERS),
    st.builds(lambda a: f"1 <= {a} < 4", NUMBERS),
    st.builds(lambda a, b, f: f"{f}([{a} > 1, {b} > 2, {a} == 3])", NUMBERS, NUMBERS,
              st.sampled_from(["any", "all"])),
)


def _dice_count(text: str) -> int:
    return sum(int(n or 1) for n in re.findall(r"\b(\d*)d\d+", text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(NUMBERS, BOOLEANS))
def test_agrees_with_enumeration(text):
    if _dice_count(text) > 6:
        return
    env = {"k": 2}
    try:
        expected = enumerate_rolls(text, env)
    except MprError as error:  # the evaluator fails on some roll: so must the distribution
        with pytest.raises(MprError) as info:
            distribution(compile_expression(text, names=set(env)), env)
        assert info.value.code == error.code
        return
    got = distribution(compile_expression(text, names=set(env)), env)
    assert dict(got.items()) == expected
    assert got.total() == 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789dD+-*/%()<>=![], .'xkifelsnotandrmaxbuc６", max_size=40))
def test_any_text_gives_a_distribution_or_a_coded_error(text):
    try:
        expression = compile_expression(text, names={"k", "x"})
        d = distribution(expression, {"k": 2, "x": [1, 2]})
    except MprError as error:
        assert error.code.startswith("MPR1")
        return
    assert d.total() == 1
