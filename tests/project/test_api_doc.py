"""The examples of ``docs/api.md`` run as they are written (each block on its own), and the public
names of ``interpreter`` are exactly the documented ones."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import interpreter

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, re.S)


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_api_example_runs(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(BLOCKS[index], f"docs/api.md block {index + 1}", "exec"), {})


def test_every_public_name_is_documented_and_loads():
    for name in interpreter.__all__:
        if name != "__version__":
            assert f"`{name}" in DOC, name
            assert getattr(interpreter, name) is not None
    with pytest.raises(AttributeError):
        interpreter.no_such_name  # noqa: B018


def test_the_package_is_typed():
    assert (ROOT / "interpreter" / "py.typed").is_file() and (ROOT / "rules_dsl" / "py.typed").is_file()
    assert os.path.getsize(ROOT / "interpreter" / "py.typed") == 0
