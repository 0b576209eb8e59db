"""Property tests: any text either gives a value or raises the project's MprError; never a
RecursionError, a lark exception, a MemoryError or any other leak."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_dsl import compile_expression
from rules_dsl.dice import SeededDice
from rules_dsl.errors import MprError
import pytest

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

ENV = {"x": 3, "y": Fraction(1, 2), "s": "鋼", "xs": [1, 2, 3], "b": True, "n": None,
       "item": {"parts": [{"price": 1200}, {"price": 800}]}, "知性": 4}

TOKENS = ["1", "0", "2", "64", "9", "(", ")", "[", "]", ",", ".", "+", "-", "*", "/", "//", "%",
          "**", "==", "!=", "<", "<=", ">", ">=", "and", "or", "not", "in", "if", "else", "true",
          "false", "null", "'a'", '"鋼"', "x", "y", "s", "xs", "b", "n", "item", "parts", "price",
          "知性", "2d6", "d66", "d0", "0d6", "d20", "floor", "ceil", "round", "min", "max", "clamp",
          "sum", "count", "len", "abs", "any", "all", "２", "Ｄ", "＋", "（", "）", " ", "\n", "'",
          "\x00", "\u200b", "$"]

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def run(text: str) -> None:
    try:
        value = compile_expression(text).evaluate(ENV, SeededDice(1))
    except MprError as error:
        assert error.code.startswith("MPR1"), error
        assert error.loc is not None
        error.message("ja")
        return
    assert value is None or isinstance(value, (int, Fraction, str, bool, list, dict))


@SETTINGS
@given(st.text(max_size=200))
def test_any_text(text: str) -> None:
    run(text)


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_token_soup(tokens: list[str]) -> None:
    run(" ".join(tokens))


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_token_soup_without_spaces(tokens: list[str]) -> None:
    run("".join(tokens))


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    atoms = st.sampled_from(["1", "2", "0", "x", "y", "xs", "s", "b", "n", "2d6", "d66",
                             "item.parts.price", "-1", "'a'", "true", "[1, 2]"])
    if depth > 4 or draw(st.booleans()):
        return draw(atoms)
    left, right = draw(expressions(depth + 1)), draw(expressions(depth + 1))
    form = draw(st.sampled_from([
        "({} + {})", "({} - {})", "({} * {})", "({} / {})", "({} // {})", "({} % {})",
        "({} ** {})", "({} < {})", "({} == {})", "({} and {})", "({} or {})", "({} in {})",
        "({} if b else {})", "min({}, {})", "clamp({}, 0, {})", "floor({} / {})", "sum([{}, {}])"]))
    return form.format(left, right)


@SETTINGS
@given(expressions())
def test_well_formed_expressions(text: str) -> None:
    run(text)


ENVS = [ENV, {**ENV, "x": Fraction(7, 2), "y": 0, "b": 1, "xs": "abc", "s": 2},
        {**ENV, "x": True, "y": None, "xs": [Fraction(1, 2), 2], "item": [{"parts": None}]},
        {**ENV, "x": 2 ** 200, "y": -3, "b": False, "n": [1], "s": ["鋼"]}]


def outcome(fn, env):
    try:
        return ("value", fn(env))
    except MprError as error:
        return ("error", error.code, error.loc)


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS[:70]), min_size=1, max_size=25), st.sampled_from(ENVS))
def test_fast_path_agrees_with_the_closures(tokens: list[str], env: dict) -> None:
    """The generated fast function gives exactly the value or the error of the closure compiler."""
    from rules_dsl.compiler import compile_ast

    try:
        expr = compile_expression(" ".join(tokens))
    except MprError:
        return
    if expr.has_dice:
        return
    slow = compile_ast(expr.ast, expr.origin)
    fast = outcome(expr.evaluate, env)
    reference = outcome(lambda e: slow(e, None), env)
    assert fast == reference
    if fast[0] == "value":
        assert type(fast[1]) is type(reference[1])


@SETTINGS
@given(expressions(), st.sampled_from(ENVS))
def test_fast_path_agrees_on_well_formed_expressions(text: str, env: dict) -> None:
    from rules_dsl.compiler import compile_ast

    try:
        expr = compile_expression(text.replace("2d6", "x").replace("d66", "y"))
    except MprError:
        return
    slow = compile_ast(expr.ast, expr.origin)
    fast = outcome(expr.evaluate, env)
    assert fast == outcome(lambda e: slow(e, None), env)
