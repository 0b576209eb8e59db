"""The one-line writer of a run's result values (cli/_flow.py) writes exactly what PyYAML writes
(yaml_readings.dump in flow style), or leaves the value to PyYAML: on a table of tricky texts, on
every value the bundled examples expect, and on generated values."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.cli._flow import one_line
from interpreter.cli.run import flow_dump

TEXTS = ["burglary_light", "空き巣に入られたが、被害は少なかった。", "Burglars broke in, but the damage was small.",
         "a: b", "a:b", "a #b", "a#b", "#a", "-a", "- a", "-", "?", "? a", "?a", ":a", "a:", "a ", " a", "",
         "'q'", "it's", '"', "yes", "Yes", "no", "on", "off", "Off", "y", "n", "null", "Null", "~", "true",
         "false", "1", "08", "1e3", "0o14", "0x1f", ".5", ".nan", "+1", "2026-12-01", "12:30", "<<", "=",
         "none", "odd_house", "field", "nothing", "onion", "yes_sir", "tab\there", "line\nbreak",
         "\u3000全角", "[x]", "{x}", "a, b", "a,b", "%a", "@a", "`a", "!a", "&a", "*a", "|a", ">a", "a|b",
         "a>b", "a%b", "a@b", "a!b", "a&b", "a*b", "x" * 200, "\ufeffbom", "é", "\x85", "a\u2028b",
         "ＰＣ１", "1d6", "d6", "True", "TRUE", "NULL", "nan", "inf", "Infinity", "3/4", "1/400", "0/1", "10/3",
         "1/2/3", "3/", "/4", "-3/4", "3 /4", "3/4 ", "٣/٤", "1_0/3", "0x1/2", "12:30/4", "1/3e5"]


FLOATS = [0.75, 0.0, -0.0, 1.0, -2.5, 0.1, 1 / 3, 1e17, 1e-7, 1.5e300, 2.0 ** -1074, 123456789.125,
          float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("number", FLOATS)
def test_a_float_is_written_as_pyyaml_writes_it(number) -> None:
    _same(number)
    _same({"fraction": "3/4", "float": number})
    _same([number, "a", 1])
    assert (one_line(number) is None) == (number != number or abs(number) == float("inf"))


def _same(value) -> None:
    written = one_line(value)
    if written is not None:
        assert written.strip() == flow_dump(value), value  # run strips both alike


@pytest.mark.parametrize("text", TEXTS)
def test_a_text_is_written_as_pyyaml_writes_it(text) -> None:
    _same(text)
    _same([text, 1])
    _same({text: text, "k": [text]})


def test_every_bundled_expected_value_is_written_as_pyyaml_writes_it() -> None:
    from interpreter.checks.loading import load_ruleset

    sure = 0
    for rule in load_ruleset(None).rules.values():
        for example in rule.doc.get("examples") or []:
            expected = example.get("expect") if isinstance(example, dict) else None
            values = expected.values() if isinstance(expected, dict) else [expected]
            for value in values:
                _same(value)
                sure += one_line(value) is not None
    assert sure > 100  # most values are written without PyYAML


ALPHABET = st.sampled_from(list("ab :#,-?'\"[]{}&*!|>%@`yn01.~<=\t/") + ["空", "、", "é", "\u3000"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.text(ALPHABET, max_size=6) | st.floats(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(ALPHABET, max_size=4), inner,
                                                                max_size=3),
    max_leaves=8)


@settings(max_examples=500, deadline=None)
@given(VALUES)
def test_any_value(value) -> None:
    _same(value)
