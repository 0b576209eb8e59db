"""The grammar and parser: text -> AST (prefix dump), spans, normalisation, and coded syntax errors."""
from __future__ import annotations

import pytest

from rules_dsl import ast, parse
from rules_dsl.errors import Location, MprError
from rules_dsl.normalize import normalize

PARSES = [
    ("1 + 2 * 3", "(+ 1 (* 2 3))"),
    ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
    ("1 - 2 - 3", "(- (- 1 2) 3)"),
    ("7 / 2 // 3 % 4", "(% (// (/ 7 2) 3) 4)"),
    ("2 ** 3 ** 2", "(** 2 (** 3 2))"),
    ("-2 ** 2", "(- (** 2 2))"),
    ("2 ** -1", "(** 2 (- 1))"),
    ("--1", "(- (- 1))"),
    ("+x", "(+ x)"),
    ("'鋼'", "'鋼'"),
    ('"a\\"b"', "'a\"b'"),
    ("'a\\nb'", "'a\\nb'"),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("[]", "[]"),
    ("[1, 'a', [true]]", "[1 'a' [true]]"),
    ("[1, 2,]", "[1 2]"),
    ("知性", "知性"),
    ("治安 + 1", "(+ 治安 1)"),
    ("item.ma_gear.parts.price", "(. (. (. item ma_gear) parts) price)"),
    ("xs[0]", "([] xs 0)"),
    ("xs[0].price", "(. ([] xs 0) price)"),
    ("item['price']", "([] item 'price')"),
    ("floor(x / 2)", "(floor (/ x 2))"),
    ("min(1, 2, 3,)", "(min 1 2 3)"),
    ("f()", "(f)"),
    ("2d6", "(2d6)"),
    ("d20", "(1d20)"),
    ("3D6", "(3d6)"),
    ("d66", "(d66)"),
    ("1d66", "(d66)"),
    ("2d6 + region.safety", "(+ (2d6) (. region safety))"),
    ("clamp(3d6, 1, 2) + 1d20", "(+ (clamp (3d6) 1 2) (1d20))"),
    ("dex", "dex"),
    ("d6x", "d6x"),
    ("a.d6", "(. a d6)"),
    ("x == 1", "(cmp x == 1)"),
    ("1 <= x < 6", "(cmp 1 <= x < 6)"),
    ("x in ['鋼', '堅木']", "(cmp x in ['鋼' '堅木'])"),
    ("x not in xs", "(cmp x not in xs)"),
    ("not a and b or c", "(or (and (not a) b) c)"),
    ("a or b and c", "(or a (and b c))"),
    ("not x == 1", "(not (cmp x == 1))"),
    ("1 if c else 2", "(if c 1 2)"),
    ("1 if a else 2 if b else 3", "(if a 1 (if b 2 3))"),
    ("a + 1 if x > 0 else -1", "(if (cmp x > 0) (+ a 1) (- 1))"),
    ("android or notable", "(or android notable)"),
    # full-width text is read as ASCII outside strings
    ("２Ｄ６＋１", "(+ (2d6) 1)"),
    ("２d６ + 1 ＊ ３", "(+ (2d6) (* 1 3))"),
    ("（１＋２）×３", "(* (+ 1 2) 3)"),
    ("ｆｌｏｏｒ（７／２）", "(floor (/ 7 2))"),
    ("x　==　'ＡＢ'", "(cmp x == 'ＡＢ')"),
    ("＇鋼＇", "'鋼'"),
    ("1 −　2", "(- 1 2)"),
    ("2d6 ― 1 — 1", "(- (- (2d6) 1) 1)"),
    ("1 +\n  2", "(+ 1 2)"),
]


@pytest.mark.parametrize("text,expected", PARSES)
def test_parses(text: str, expected: str) -> None:
    assert ast.dump(parse(text)) == expected


SPANS = [
    ("1 + 2d6", ast.Binary, (1, 1, 8)),
    ("  2d6 ", ast.Dice, (1, 3, 6)),
    ("floor(x)", ast.Call, (1, 1, 9)),
    ("a.b.c", ast.Attribute, (1, 1, 6)),
    ("x ==\n 1", ast.Compare, (1, 1, 3)),
]


@pytest.mark.parametrize("text,kind,span", SPANS)
def test_root_span(text: str, kind: type, span: tuple[int, int, int]) -> None:
    node = parse(text)
    assert isinstance(node, kind)
    assert (node.span.line, node.span.column, node.span.end_column) == span


def test_every_node_has_a_span_inside_the_text() -> None:
    text = "floor(sum(item.parts.price) / 500) + (2d6 if x in ['a'] else -d66)"
    for node in ast.walk(parse(text)):
        assert node.span.line == 1
        assert 1 <= node.span.column < node.span.end_column <= len(text) + 1


def test_call_name_span() -> None:
    node = parse("1 + clamp(x, 1, 2)")
    call = node.right
    assert (call.name_span.column, call.name_span.end_column) == (5, 10)


ERRORS = [
    ("", "MPR105", 1), ("   ", "MPR105", 1),
    ("(1 + 2", "MPR113", 1), ("1 + 2)", "MPR113", 6), ("[1, 2)", "MPR113", 6),
    ("1 +", "MPR112", 4), ("floor(", "MPR113", 6), ("1 if x", "MPR112", 7),
    ("1 2", "MPR111", 3), ("1 + * 2", "MPR111", 5), ("a..b", "MPR111", 3),
    ("2d6x", "MPR111", 2), ("1 $ 2", "MPR110", 3), ("x = 1", "MPR110", 3),
    ("'abc", "MPR104", 1), ('1 + "abc', "MPR104", 5), ("'a\nb'", "MPR104", 1),
    ("1\x00", "MPR101", 2), ("1 +\x07 2", "MPR102", 4), ("1 +\u200b2", "MPR103", 4),
    ("a\u202eb", "MPR103", 2), ("\ufeff1", "MPR103", 1),
    ("1" * 100, "MPR116", 1),
    ("1000000000d6", "MPR120", 1), ("101d6", "MPR120", 1), ("d1001", "MPR121", 1),
    ("1 + d0", "MPR122", 5), ("0d0", "MPR122", 1), ("0d6", "MPR123", 1), ("2d66", "MPR124", 1),
    ("2 ** 0.5", "MPR106", 6), ("x *\n 1.25", "MPR106", 2), ("a.5", "MPR111", 3),
    ("1." + "3" * 40, "MPR111", 3),
]


@pytest.mark.parametrize("text, en, ja", [
    ("x * 0.25", "write the exact fraction 1/4", "厳密な分数 1/4"),
    ("item.", "expected a field name", "フィールド名が来るはず"),
])
def test_syntax_error_hints(text: str, en: str, ja: str) -> None:
    with pytest.raises(MprError) as caught:
        parse(text)
    assert en in caught.value.message("en") and ja in caught.value.message("ja")


@pytest.mark.parametrize("text,code,column", ERRORS)
def test_syntax_errors(text: str, code: str, column: int) -> None:
    with pytest.raises(MprError) as caught:
        parse(text)
    assert caught.value.code == code
    assert caught.value.loc.column == column
    assert caught.value.message("ja") and caught.value.message("en")


def test_errors_are_located_in_the_file() -> None:
    with pytest.raises(MprError) as caught:
        parse("1 + + * 2", Location("rules/a.yaml", 12, 9, "procurement.rarity"))
    loc = caught.value.loc
    assert (loc.file, loc.line, loc.column) == ("rules/a.yaml", 12, 15)


def test_errors_on_a_later_line_are_located_on_that_line() -> None:
    with pytest.raises(MprError) as caught:
        parse("1 +\n  $", Location("a.yaml", 5, 10))
    assert (caught.value.loc.line, caught.value.loc.column) == (6, 3)


def test_expected_tokens_are_named() -> None:
    with pytest.raises(MprError) as caught:
        parse("1 +")
    assert "a value" in caught.value.message("en")
    assert "値" in caught.value.message("ja")


NORMALISED = [
    ("２Ｄ６＋１", "2D6+1"),
    ("'２Ｄ６' + ２", "'２Ｄ６' + 2"),
    ('"（鋼）" == ｘ', '"（鋼）" == x'),
    ("知性　＞＝　４", "知性 >= 4"),
    ("ｶﾞ", "ｶﾞ"),
]


@pytest.mark.parametrize("text,expected", NORMALISED)
def test_normalise_keeps_strings_and_columns(text: str, expected: str) -> None:
    normal = normalize(text)
    assert normal == expected
    assert len(normal) == len(text)
