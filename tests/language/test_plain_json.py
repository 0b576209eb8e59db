"""``rules_dsl.plain.json_text`` writes plain data as ``json.dumps(ensure_ascii=False)`` does, or
leaves it to json (None): the trace shows lists and mappings without loading json."""
from __future__ import annotations

import json

import pytest

from rules_dsl.plain import json_text

VALUES = [None, True, False, 0, -7, 10 ** 40, "", "鋼", 'a"b', "a\\b", "tab\there", "line\nbreak",
          "\r\b\f", "\x00\x1f\x7f", "\u2028", "\ud800", "é̃", [], {}, [1, "a", None, [True, {}]],
          {"a": [1, 2], "鋼": {"x": "y"}}, ["鋼", "堅木", "合成繊維", "獣革"]]
LEFT = [1.5, float("nan"), [1, 0.5], {"a": 2.0}, {1: "a"}, (1, 2), {"a": (1,)}]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_plain_data_is_written_as_json_writes_it(value) -> None:
    assert json_text(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("value", LEFT, ids=repr)
def test_anything_else_is_left_to_json(value) -> None:
    assert json_text(value) is None
