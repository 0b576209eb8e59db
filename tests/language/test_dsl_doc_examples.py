"""The examples of docs/language.md run as written: each ```text block of `expression  →  result`
lines is evaluated with the inputs of the ```yaml block before it (a result MPRnnn is that error)."""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from rules_dsl import compile_expression
from rules_dsl.errors import MprError

PAGE = Path(__file__).resolve().parents[2] / "docs" / "language.md"
_BLOCK = re.compile(r"```yaml\n(.*?)```\s*```text\n(.*?)```", re.S)


def _examples() -> list[tuple[str, dict, str]]:
    out = []
    for env_text, lines in _BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        env = yaml.safe_load(env_text)
        for line in lines.splitlines():
            expression, result = line.split("  →  ")
            out.append((expression, env, result))
    return out


EXAMPLES = _examples()


def _shown(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def test_the_page_has_examples_in_both_languages() -> None:
    assert len(EXAMPLES) >= 20
    assert len(_BLOCK.findall(PAGE.read_text(encoding="utf-8"))) >= 2


@pytest.mark.parametrize("expression,env,result", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_documented_example(expression: str, env: dict, result: str) -> None:
    if re.fullmatch(r"MPR\d{3}", result):
        with pytest.raises(MprError) as caught:
            compile_expression(expression, names=env).evaluate(env)
        assert caught.value.code == result
        assert caught.value.loc is not None and caught.value.loc.column is not None
    else:
        value = compile_expression(expression, names=env).evaluate(env)
        assert _shown(value) == yaml.safe_load(result)
