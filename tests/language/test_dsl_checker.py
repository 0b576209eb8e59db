"""The static checker: what can be known before running is reported at compile time, with columns;
what could succeed at run time is never refused."""
from __future__ import annotations

import pytest

from rules_dsl import compile_expression, parse
from rules_dsl.checker import check
from rules_dsl.errors import Location, MprError

FINDINGS = [
    # unknown functions, with a suggestion
    ("flor(x)", "MPR130", 1, "did you mean 'floor'"),
    ("1 + Floor(x)", "MPR130", 5, "did you mean 'floor'"),
    ("sqrt(4)", "MPR130", 1, "the functions are floor"),
    # arity
    ("floor()", "MPR131", 1, "takes 1"),
    ("floor(1, 2)", "MPR131", 1, "takes 1"),
    ("clamp(x, 1)", "MPR131", 1, "takes 3"),
    ("count(xs, 1, 2)", "MPR131", 1, "takes 1-2"),
    ("min()", "MPR131", 1, "takes 1+"),
    # operators on literals of the wrong kind
    ("1 + 'a'", "MPR142", 3, "number and string"),
    ("'a' - 1", "MPR142", 5, "'-'"),
    ("true / 2", "MPR142", 6, "boolean and number"),
    ("x * null", "MPR142", 3, "value and null"),
    ("-'a'", "MPR142", 1, "string"),
    ("1 < 'a'", "MPR142", 3, "'<'"),
    ("[1] < [2]", "MPR142", 5, "list"),
    ("x in 3", "MPR142", 3, "'in'"),
    ("3 .x", "MPR142", 1, "'.'"),
    ("[1][true]", "MPR142", 4, "'[]'"),
    # an operator's error points at the operator, also across lines and inside brackets
    ("x < 2 < 'a'", "MPR142", 7, "'<'"),
    ("[1] [ (true) ]", "MPR142", 5, "'[]'"),
    ("(x > 3) + 'a'", "MPR142", 9, "'+'"),
    ("2 ** 'a'", "MPR142", 3, "'**'"),
    ("x not in 3", "MPR142", 3, "'not in'"),
    ("floor('a')", "MPR170", 7, "floor() takes a number, got string"),
    ("sum(3)", "MPR170", 5, "sum() takes a list, got number"),
    ("min(1, 'a')", "MPR170", 8, "min()"),
    ("any(1)", "MPR170", 5, "any()"),
    ("1 and x", "MPR148", 1, "'and'"),
    ("x or 'a'", "MPR148", 6, "'or'"),
    ("not 1", "MPR148", 1, "'not'"),
    ("1 if 2 else 3", "MPR148", 6, "'if'"),
    ("floor(1 + 'a') + 1", "MPR142", 9, "'+'"),
]


@pytest.mark.parametrize("text,code,column,phrase", FINDINGS)
def test_static_findings(text: str, code: str, column: int, phrase: str) -> None:
    findings = check(parse(text), Location("a.yaml", 4, 3))
    assert findings, text
    first = findings[0]
    assert first.code == code
    assert (first.loc.file, first.loc.line, first.loc.column) == ("a.yaml", 4, 2 + column)
    assert phrase in first.message("en")
    assert first.message("ja")


FINE = [
    "x + y", "x + 'a'", "'a' + 'b'", "[1] + xs", "x / 2", "floor(x)", "min(xs)", "min(1, x)",
    "max(1, 2, 3)", "count(flags)", "count(xs, 'a')", "len('abc')", "len(x)", "x.y.z", "null.x",
    "x[0]", "{}".format("1 if x else 2"), "not x", "x and y or z", "x in xs", "'a' in 'abc'",
    "1 < x <= 3", "x == 'a'", "2d6 + d66 + x", "sum(item.parts.price) / 500", "any(x)",
    "clamp(2d6, 1, 2) + 1", "(1 if x else 'a') + 1",
]


@pytest.mark.parametrize("text", FINE)
def test_no_finding_for_what_may_run(text: str) -> None:
    assert check(parse(text)) == []


def test_every_finding_is_reported() -> None:
    findings = check(parse("flor(1) + 'a' * 2 + floor()"))
    assert [f.code for f in findings] == ["MPR130", "MPR142", "MPR131"]


NAMES = [
    ("item.price + 1", {"item"}, []),
    ("itme.price", {"item"}, ["MPR133"]),
    ("a + b", {"a"}, ["MPR133"]),
    ("知性 + 治安", {"知性", "治安"}, []),
]


@pytest.mark.parametrize("text,names,codes", NAMES)
def test_unknown_root_names(text: str, names: set[str], codes: list[str]) -> None:
    assert [f.code for f in check(parse(text), None, names)] == codes


def test_unknown_root_name_suggests_and_lists() -> None:
    with pytest.raises(MprError) as caught:
        compile_expression("itme.price", names={"item", "region"})
    assert caught.value.code == "MPR133"
    message = caught.value.message("en")
    assert "did you mean 'item'" in message and "item, region" in message


def test_compile_raises_the_first_finding_located() -> None:
    with pytest.raises(MprError) as caught:
        compile_expression("x + flor(2)", origin=Location("b.yaml", 7, 20))
    assert caught.value.code == "MPR130"
    assert (caught.value.loc.line, caught.value.loc.column) == (7, 24)
