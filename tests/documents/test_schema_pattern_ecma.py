"""``pattern`` and ``patternProperties`` are ECMA-262 regular expressions (as JSON Schema defines
them), not Python's: ``$`` is the end of the text only, so ``"abc\\n"`` does not pass ``^abc$``.
The schema files stay as editors read them; mprules's validator reads them the ECMA way."""
from __future__ import annotations

import re

import pytest

from interpreter.documents.schema_keywords import Validator, ecma_pattern, pattern_matches

# (pattern, text, matches in ECMA-262); rows where Python's re.search says otherwise are marked
CASES = [
    ("^abc$", "abc", True),
    ("^abc$", "abc\n", False),                 # Python: True
    ("^abc$", "abc\n\n", False),
    ("abc$", "xxabc", True),
    ("abc$", "xxabc\n", False),                # Python: True
    ("abc", "abc\n", True),                    # no anchor: a match anywhere
    ("^abc\\n$", "abc\n", True),               # a newline written in the pattern
    ("^a\\$", "a$", True),                     # an escaped $ is the character
    ("^a\\$", "a", False),
    ("^\\\\$", "\\", True),                    # an escaped backslash, then the end
    ("^\\\\$", "\\\n", False),                 # Python: True
    ("^[$]+$", "$$", True),                    # $ in a class is the character
    ("^[$]+$", "$$\n", False),                 # Python: True
    ("^[]$]$", "$", True),                     # "]" first in a class is a character
    ("^[]$]$", "]\n", False),                  # Python: True
    ("^[^$]$", "b", True),
    ("^[^$]$", "b\n", False),                  # Python: True
    ("^(a|b)$", "b\n", False),                 # Python: True
    ("^a$|^b$", "a\n", False),                 # Python: True
    ("^MPR[0-9]{3}$", "MPR123\n", False),      # Python: True
    ("^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$", "rule.id", True),
    ("^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$", "rule.id\n", False),  # Python: True
    ("^x$\\d*", "x", True),
]
PYTHON_DIFFERS = {(p, t) for p, t, ok in CASES if bool(re.search(p, t)) != ok}


@pytest.mark.parametrize("pattern, text, expected", CASES)
def test_pattern_is_read_as_ecma(pattern: str, text: str, expected: bool) -> None:
    assert pattern_matches(pattern, text) is expected
    errors = list(Validator({"type": "string", "pattern": pattern}).iter_errors(text))
    assert (errors == []) is expected
    assert all(e.validator == "pattern" for e in errors)


def test_the_table_shows_where_python_differs() -> None:
    """The table is worth its rows: Python's own ``$`` gets these wrong."""
    assert len(PYTHON_DIFFERS) >= 9


@pytest.mark.parametrize("pattern, key, expected", [(p, t, ok) for p, t, ok in CASES])
def test_pattern_properties_and_additional_properties(pattern: str, key: str, expected: bool) -> None:
    schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}},
              "additionalProperties": False}
    errors = list(Validator(schema).iter_errors({key: 1}))
    assert (errors == []) is expected
    wrong = list(Validator(schema).iter_errors({key: "not a number"}))
    assert len(wrong) == 1 and wrong[0].validator == ("type" if expected else "additionalProperties")


@pytest.mark.parametrize("key, known", [("abc", True), ("abc\n", False)])
def test_unevaluated_properties(key: str, known: bool) -> None:
    schema = {"allOf": [{"patternProperties": {"^abc$": {"type": "integer"}}}],
              "unevaluatedProperties": False}
    errors = list(Validator(schema).iter_errors({key: 1}))
    assert (errors == []) is known


def test_the_translation_keeps_everything_else() -> None:
    assert ecma_pattern(r"^[a-z$\]]+\$(x|y)$") == r"^[a-z$\]]+\$(x|y)\Z"
    assert ecma_pattern("abc") == "abc"
