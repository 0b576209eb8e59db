"""Local names: comprehensions, generator arguments, let, and the list/mapping functions; their
values, their located errors, the checker's findings and their exact distributions."""
from __future__ import annotations

from fractions import Fraction

import pytest

from rules_dsl import compile_expression, parse
from rules_dsl.ast import dump
from rules_dsl.errors import MprError

ENV = {"xs": [3, 1, 2], "ps": [{"n": "a", "v": 1}, {"n": "b", "v": 2}], "m": {"k": 1, "j": 2},
       "flags": [True, False], "half": Fraction(1, 2), "nothing": None}

PARSED = [
    ("[x for x in xs]", "(list $x (for x xs))"),
    ("[x for x in xs if x > 1 if x < 3]", "(list $x (for x xs) (if (cmp $x > 1)) (if (cmp $x < 3)))"),
    ("all(x for x in xs)", "(all (gen $x (for x xs)))"),
    ("[y for x in xs for y in x]", "(list $y (for x xs) (for y $x))"),
    ("[x for x in x]", "(list $x (for x x))"),  # the list is read before x is bound
    ("let a = 1, b = a in b", "(let a 1 (let b $a $b))"),
    ("let a = a in a", "(let a a $a)"),
    ("[a if a > 1 else 0 for a in xs]", "(list (if (cmp $a > 1) $a 0) (for a xs))"),
    ("letter + fortune + inward", "(+ (+ letter fortune) inward)"),
]


@pytest.mark.parametrize("text,tree", PARSED)
def test_parsed(text: str, tree: str) -> None:
    assert dump(parse(text)) == tree


VALUES = [
    ("[x * 2 for x in xs]", [6, 2, 4]),
    ("[p.n for p in ps if p.v > 1]", ["b"]),
    ("[x + y for x in [1, 2] for y in [10, 20]]", [11, 21, 12, 22]),
    ("[[y for y in range(x)] for x in range(3)]", [[], [0], [0, 1]]),
    ("sum(p.v for p in ps)", 3), ("sum(x / 2 for x in xs)", 3), ("min(x for x in xs)", 1),
    ("max(x for x in xs if x < 3)", 2), ("count(x for x in xs if x > 1)", 2),
    ("count(f for f in flags)", 1), ("count(x for x in [0, null, false])", 2),
    ("all(x > 0 for x in xs)", True), ("any(x > 5 for x in xs)", False),
    ("any(x == 3 for x in [3, 'a'])", True),  # stops before the string
    ("all(x > 0 for x in [])", True), ("sum(x for x in [])", 0),
    ("len(x for x in xs if x > 1)", 2), ("sorted(x for x in xs)", [1, 2, 3]),
    ("let n = len(xs) in n * n", 9), ("let h = half in h + h", 1),
    ("let a = 1, b = a + 1, c = b * 2 in [a, b, c]", [1, 2, 4]),
    ("let ok = (1 < 2) in ok and true", True),
    ("let x = 1 in [x + y for y in xs]", [4, 2, 3]),
    ("unique([1, 1, 2, 1])", [1, 2]), ("unique([[1], [1], m, m])", [[1], {"k": 1, "j": 2}]),
    ("duplicates([1, 2, 1, 1, 2])", [1, 2]), ("sorted(['b', 'a'])", ["a", "b"]),
    ("sorted([half, 0, 1])", [0, Fraction(1, 2), 1]), ("join([1, 'a', half], '-')", "1-a-1/2"),
    ("keys(m)", ["k", "j"]), ("values(m)", [1, 2]), ("range(2, 4)", [2, 3]), ("range(-1)", []),
]


@pytest.mark.parametrize("text,value", VALUES)
def test_value(text: str, value) -> None:
    expression = compile_expression(text)
    assert expression.evaluate(ENV) == value
    assert expression.names <= set(ENV)


ERRORS = [  # (text, code, column): raised by the checker or at evaluation
    ("[x for x in 3]", "MPR128", 13), ("[x for x in m]", "MPR128", 13),
    ("[x for x in nothing]", "MPR128", 13), ("[y for x in xs]", "MPR133", 2),
    ("[x for x in xs if x]", "MPR148", 19), ("all(x for x in xs)", "MPR170", 1),
    ("[x for x in xs for x in xs]", "MPR127", 20), ("let a = 1 in let a = 2 in a", "MPR127", 18),
    ("[1 for xs in [1]]", "MPR127", 8), ("let m = 1 in m", "MPR127", 5),
    ("floor(x for x in xs)", "MPR170", 7), ("join(xs)", "MPR131", 1), ("keys(xs)", "MPR170", 1), ("keys([1])", "MPR170", 6),
    ("sorted([1, 'a'])", "MPR170", 1), ("join([[1]], ',')", "MPR170", 1),
    ("range(1/2)", "MPR170", 1), ("x = 1", "MPR110", 3), ("let x == 1 in x", "MPR110", 8),
    ("min(x for x in xs if x > 9)", "MPR171", 1), ("[x for x in xs if x > 'a']", "MPR142", 21),
]


@pytest.mark.parametrize("text,code,column", ERRORS)
def test_error(text: str, code: str, column: int) -> None:
    with pytest.raises(MprError) as caught:
        compile_expression(text, names=ENV).evaluate(ENV)
    assert (caught.value.code, caught.value.loc.column) == (code, column)


def test_inner_name_wins_when_the_input_names_are_not_known() -> None:
    expression = compile_expression("[xs for xs in [1, 2]] + xs")
    assert expression.evaluate(ENV) == [1, 2, 3, 1, 2]
    assert expression.names == {"xs"}


def test_the_environment_is_not_written() -> None:
    env = {"xs": [1, 2], "x": "outer"}
    assert compile_expression("[x for x in xs] + [x]").evaluate(env) == [1, 2, "outer"]
    assert env == {"xs": [1, 2], "x": "outer"}


DISTRIBUTIONS = [
    ("let x = d6 in x + x", {2: Fraction(1, 6), 12: Fraction(1, 6)}),
    ("sum(x for x in [d6, d6])", {2: Fraction(1, 36), 7: Fraction(1, 6)}),
    ("count(x > 3 for x in [d6, d6])", {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}),
    ("let x = 3 in max(x, d4)", {3: Fraction(3, 4), 4: Fraction(1, 4)}),
    ("[x * 2 for x in [d4]]", {(2,): Fraction(1, 4), (8,): Fraction(1, 4)}),
    ("let n = d4 in len([i for i in range(n)])", {1: Fraction(1, 4), 4: Fraction(1, 4)}),
]


@pytest.mark.parametrize("text,some", DISTRIBUTIONS)
def test_distribution(text: str, some: dict) -> None:
    distribution = compile_expression(text).distribution({})
    assert distribution.total() == 1
    for value, p in some.items():
        assert distribution[value] == p


@pytest.mark.parametrize("text,column", [("[d6 for i in [1, 2]]", 2),
                                         ("[i for i in [1] if d6 > 3]", 20),
                                         ("sum(i + d4 for i in [1, 2])", 9),
                                         ("[j for i in [1] for j in [d6]]", 27)])
def test_dice_inside_a_loop_are_refused_by_prob(text: str, column: int) -> None:
    with pytest.raises(MprError) as caught:
        compile_expression(text).distribution({})
    assert (caught.value.code, caught.value.loc.column) == ("MPR135", column)
