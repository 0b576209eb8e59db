"""No message of a layer below the command line names a command-line flag (docs/architecture.md):
the library names its inputs, ``interpreter/cli`` says which flag gives them. Checked on the text
of every ``define``/``define_word``/``define_words`` call and every ``Location(path=...)`` literal."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BELOW_CLI = sorted(p for package in ("rules_dsl", "interpreter") for p in (ROOT / package).rglob("*.py")
                   if "cli" not in p.relative_to(ROOT).parts)
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
# Texts that are no messages to a user: how a developer regenerates a file.
DEVELOPER = ("python3 -m interpreter.documents.schema",)


def _texts(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _flags_named(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func).rsplit(".", 1)[-1]
        if name in ("define", "define_word", "define_words") or (
                name == "Location" and any(k.arg == "path" for k in node.keywords)):
            for text in _texts(node):
                if FLAG.search(text) and not any(d in text for d in DEVELOPER):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:90]!r}")
    return found


@pytest.mark.parametrize("path", BELOW_CLI, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_message_below_the_command_line_names_a_flag(path: Path) -> None:
    assert _flags_named(path) == []
