"""``interpreter.cli.output.json_text`` (what ``--format json`` prints, through
``rules_dsl.plain.json_indented``) writes what ``json.dumps(jsonable(data), ensure_ascii=False,
indent=2)`` writes, for any plain data (texts with quotes, escapes and wide characters, whole
numbers of any size, floats with NaN and infinities, true, false, null, empty and nested
mappings and lists, tuples, keys that are not texts) and for values ``jsonable`` changes
(fractions, objects with ``to_json``)."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.cli.output import json_text
from rules_dsl.plain import jsonable

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(), st.sampled_from(['"', "\\", "\n\t\x00\x1f", "出目 7", "\u2028", "\ud800"]),
    st.fractions(max_denominator=50))
KEYS = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.booleans())
DATA = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(KEYS, inner, max_size=5)), max_leaves=30)


def _expected(data) -> str:
    return json.dumps(jsonable(data), ensure_ascii=False, indent=2)


@settings(max_examples=400, deadline=None)
@given(DATA)
def test_the_same_text_as_json(data) -> None:
    assert json_text(data) == _expected(data) + "\n"


class _Shown:
    def to_json(self) -> dict:
        return {"kind": "shown", "rows": [1, "1/3"]}


@pytest.mark.parametrize("data", [
    {}, [], {"a": {}}, {"a": []}, [[], {}], {"rows": [{"value": 1, "p": "1/6", "percent": 16.67}]},
    {"mean": Fraction(7, 2), "whole": Fraction(4, 1)}, [_Shown()], {1: "one", None: "none", 2.5: "half"},
    {"value": float("nan"), "big": 10 ** 80, "small": -(10 ** 80), "inf": float("-inf")},
    {"set": {1, 2}},
], ids=["empty mapping", "empty list", "empty in a mapping", "empty list in a mapping", "empties in a list",
        "a prob row", "fractions", "to_json", "keys not texts", "numbers at the edges",
        "a set, as its text"])
def test_cases(data) -> None:
    assert json_text(data) == _expected(data) + "\n"
