"""Exact distributions of expressions (rules_dsl.prob): known tables, and agreement with a brute
force that runs the evaluator itself on every possible sequence of dice."""
from __future__ import annotations

import itertools
import math
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


# --- pools: one dice expression written n times, read by an order-free function ----------------
# rules_dsl.prob_pools counts such pools by outcome; every size the general way can compute must
# give the same Fractions (and the same errors), and the evaluator itself over every roll agrees.

def _listed(item: str, n: int) -> str:
    return "[" + ", ".join([item] * n) + "]"


POOL_SHAPES = [
    "let s = sorted({d6}) in s[-1] + s[-2] + s[-3]",  # keep the highest three
    "let s = sorted({d6}) in s[0] + s[1]",  # keep the lowest two
    "let s = sorted({d4}) in s[0] * 10 + s[-1] + len(s)",  # both ends
    "let s = sorted({d4}) in s[-1] - s[0] if s[0] > 1 else 0",
    "sorted({d4})", "sorted({d4})[1]", "sorted({d3})[-2]",
    "sorted({2d3})[0]", "sorted({d6 // 2})[-1]", "sorted({d3 / 2})",
    "count({d6 >= 5})", "count({d6 >= 5 and d6 <= 5})", "count({d6}, 3)", "count({d6 // 3}, 1)",
    "any({d6 == 6})", "all({d6 >= 2})", "any({d3 > 3})", "all({d3 <= 3})",
    "max({d6})", "min({d6})", "max({d4 - 2})", "min({d3 * 2})", "max({2d3 / 3})",
    "sorted({'ab' if d3 == 1 else 'b'})", "count({'x' if d3 == 1 else 'y'}, 'x')",
    "max({d6}) + d4", "let s = sorted({d4}) in s[-1] + d4",
    # kept as a running sum (only the sum of what is read) or only the positions read
    "let s = sorted({d6}) in s[-1] + s[-1] + s[-3]",  # a position read twice, one skipped
    "let s = sorted({d6 - 3}) in s[0] + s[2]",  # negative values, a gap
    "let s = sorted({d4}) in s[-1] + s[0]",  # both ends: every position met
    "let s = sorted({d3 / 2}) in s[-1] + s[-2]",  # fractions: the positions, not a sum
    "let s = sorted({d4}) in s[1] * s[2]", "sorted({d6})[2] + 1",
    "let s = sorted({2d4}) in s[-2] + s[-2]",
]
POOL_ERRORS = [
    "max({d6 >= 3})", "count({d6})", "any({d4})", "sorted({d3 >= 2})",
    "sorted({1 if d3 == 1 else 'a'})", "sorted({d3})[5]", "let s = sorted({d3}) in s[-7]",
    "let s = sorted({d3}) in s[-1] + s[5]", "let s = sorted({'a' if d3 == 1 else 'b'}) in s[0] + s[1] + 1",
]


def _general(monkeypatch, text: str) -> dict:
    from rules_dsl import prob_pools

    with monkeypatch.context() as patched:
        patched.setattr(prob_pools, "recognise", lambda node, random: None)
        patched.setattr(prob_pools, "let_shape", lambda node, random: None)
        return dist(text)


def _pool_text(shape: str, n: int) -> str:
    return re.sub(r"\{([^{}]*)\}", lambda m: _listed(m.group(1), n), shape)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("shape", POOL_SHAPES)
def test_pool_counts_equal_the_enumeration(monkeypatch, shape, n):
    text = _pool_text(shape, n)
    got = _result(lambda: dist(text))
    assert got == _result(lambda: _general(monkeypatch, text))
    if n <= 3:  # the evaluator itself, over every sequence of dice
        assert got == _result(lambda: enumerate_rolls(text, {}))


def _result(compute):
    """The distribution, or the code of the error computing it (an index outside a short list)."""
    try:
        got = compute()
    except MprError as error:
        return error.code
    assert sum(got.values()) == 1
    return got


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("shape", POOL_ERRORS)
def test_pool_errors_equal_the_enumeration(monkeypatch, shape, n):
    text = _pool_text(shape, n)
    with pytest.raises(MprError) as pooled:
        dist(text)
    with pytest.raises(MprError) as general:
        _general(monkeypatch, text)
    assert pooled.value.code == general.value.code


@pytest.mark.parametrize("text", [
    "max(d6, d6, d6)", "min(2d4, 2d4)", "max(d6, d6) + min(d6, d6, d6)",
    "sorted([d6, d6, d4])[0]",  # not one expression written n times: the general way
    "count([d6 >= 5, d6 >= 4])", "let s = sorted([d3, d3, d3]) in sum(s)",
    "let s = sorted([d3, d3, d3]) in s[len(s) - 1]",
])
def test_pool_like_shapes_equal_the_enumeration(monkeypatch, text):
    assert dist(text) == _general(monkeypatch, text) == enumerate_rolls(text, {})


@pytest.mark.parametrize("text, n, expected", [
    # beyond the general way: closed forms by hand
    ("count({d6 >= 5})", 50, {k: Fraction(math.comb(50, k) * 2 ** k * 4 ** (50 - k), 6 ** 50)
                              for k in range(51)}),
    ("max({d20})", 100, {v: Fraction(v ** 100 - (v - 1) ** 100, 20 ** 100) for v in range(1, 21)}),
    ("min({d20})", 100, {v: Fraction((21 - v) ** 100 - (20 - v) ** 100, 20 ** 100) for v in range(1, 21)}),
    ("all({d6 >= 2})", 40, {True: Fraction(5, 6) ** 40, False: 1 - Fraction(5, 6) ** 40}),
])
def test_large_pools_are_exact(text, n, expected):
    assert dist(_pool_text(text, n)) == expected


def test_keep_highest_three_of_many_faces_is_a_running_sum():
    """Keep-highest-3 of 12d100 keeps (values met, their sum): a few hundred states where the
    triples of values read are 171,700 (refused by the work budget before)."""
    got = dist(_pool_text("let s = sorted({d100}) in s[-1] + s[-2] + s[-3]", 12))
    assert sum(got.values()) == 1 and min(got) == 3 and max(got) == 300
    assert got[3] == Fraction(1, 100 ** 12)
    assert got[300] == 1 - Fraction(99 ** 12 + 12 * 99 ** 11 + 66 * 99 ** 10, 100 ** 12)
    # the 6th lowest of 12d100: the order statistic, from the binomial closed form
    sixth = dist(_pool_text("sorted({d100})[5]", 12))
    cdf = [sum(math.comb(12, j) * v ** j * (100 - v) ** (12 - j) for j in range(6, 13))
           for v in range(101)]
    assert sixth == {v: Fraction(cdf[v] - cdf[v - 1], 100 ** 12) for v in range(1, 101)}


def test_keep_highest_three_of_twenty_dice():
    got = dist(_pool_text("let s = sorted({d6}) in s[-1] + s[-2] + s[-3]", 20))
    assert sum(got.values()) == 1 and min(got) == 3 and max(got) == 18
    assert got[3] == Fraction(1, 6 ** 20)  # every die 1
    assert got[18] == 1 - Fraction(5 ** 20 + 20 * 5 ** 19 + 190 * 5 ** 18, 6 ** 20)  # three or more 6s


@pytest.mark.parametrize("shape", POOL_SHAPES)
def test_pool_shapes_are_counted(shape):
    """Each shape above goes the counting way (the tests above would pass by the general way too)."""
    from rules_dsl import ast, prob_pools
    from rules_dsl.prob import random_nodes

    tree = compile_expression(_pool_text(shape, 3)).ast
    random = random_nodes(tree)
    assert any(prob_pools.recognise(node, random) is not None or (
        isinstance(node, ast.Let) and prob_pools.let_shape(node, random) is not None)
        for node in ast.walk(tree))


@pytest.mark.parametrize("text", [
    "1d6 + 1d8", "2d6 - 1d4", "(1d10 - 1) * 10 + 1d10", "1d4 - 1d4 - 1d4", "d66 + 1d6",
    "1d6 / 2 + 1d2",  # not whole numbers: the general way
    f"(1d2 + {2 ** 255 - 1}) + (1d2 + {2 ** 255 - 1})",  # past the bound of whole numbers on some rolls
    f"(-1d2 - {2 ** 255 - 1}) - (1d2 + {2 ** 255 - 1})",
    f"(1d2 + {2 ** 255 - 1}) + (1d2 - 3)",  # near the bound, never past it
])
def test_sums_of_whole_numbers_agree_with_enumeration(text):
    """Whole numbers added or subtracted pair by pair (``_added``) give what the evaluator gives on
    every roll: the same distribution, or the same error where one roll passes the bound."""
    try:
        expected = enumerate_rolls(text, {})
    except MprError as error:
        with pytest.raises(MprError) as info:
            distribution(compile_expression(text), {})
        assert info.value.code == error.code
        return
    assert dict(distribution(compile_expression(text), {}).items()) == expected
