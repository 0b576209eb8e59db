"""Imports inside a function are the exception, kept only where start-up needs them, and each says
why (docs/architecture.md): a comment on the import's line or on the comment line(s) directly above
it; one comment above a run of consecutive import statements covers the run. Imports under
``if TYPE_CHECKING:`` are for annotations and need none. One case per file."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from source_support import typing_only

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for package in ("rules_dsl", "interpreter") for p in (ROOT / package).rglob("*.py"))
# Tool pragmas are not a reason.
_PRAGMA = re.compile(r"noqa\b(:[\w, ]*)?|type:\s*ignore(\[[\w\-, ]*\])?|pragma:[^#]*")
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _comments(source: str) -> dict[int, str]:
    """The reason each comment gives, by line, with tool pragmas taken out."""
    found: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = _PRAGMA.sub("", token.string).strip(" #")
    return found




def _explained(node: ast.stmt, siblings: list[ast.stmt], comments: dict[int, str],
               lines: list[str]) -> bool:
    def said(line: int) -> bool:
        return bool(comments.get(line))

    def comment_above(line: int) -> bool:
        above = line - 1
        return above >= 1 and lines[above - 1].lstrip().startswith("#") and said(above)

    head = node
    index = siblings.index(node)
    while index > 0 and isinstance(siblings[index - 1], (ast.Import, ast.ImportFrom)) \
            and siblings[index - 1].end_lineno == head.lineno - 1:
        index -= 1
        head = siblings[index]
        if any(said(line) for line in range(head.lineno, (head.end_lineno or head.lineno) + 1)):
            return True
    own = any(said(line) for line in range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return own or comment_above(head.lineno)


def _unexplained(path: Path, root: Path = ROOT) -> list[str]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    comments = _comments(source)
    lines = source.splitlines()
    skipped = typing_only(tree)
    missing: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for holder in ast.walk(function):
            for field in _STATEMENT_LISTS:
                siblings = getattr(holder, field, None)
                if not isinstance(siblings, list):
                    continue
                for node in siblings:
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped \
                            and not _explained(node, siblings, comments, lines):
                        missing.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return sorted(set(missing))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_deferred_import_says_why(path: Path) -> None:
    missing = _unexplained(path)
    assert not missing, "a function-level import without a comment saying why it waits:\n" + "\n".join(missing)


CASES = [
    ("def f():\n    import json\n", 1),
    ("def f():\n    import json  # start-up: only f needs it\n", 0),
    ("def f():\n    # start-up: only f needs them\n    import json\n    import csv\n", 0),
    ("def f():\n    # start-up: only f needs it\n    import json\n\n    import csv\n", 1),
    ("def f():\n    import json  # noqa: F401\n", 1),
    ("def f():\n    import json  # type: ignore[import]\n", 1),
    ("def f():\n    x = 1  # a comment about x\n    import json\n", 1),
    ("def f():\n    if True:\n        import json\n", 1),
    ("TYPE_CHECKING = False\ndef f():\n    if TYPE_CHECKING:\n        import json\n", 0),
    ("import json\n", 0),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_the_check_itself(tmp_path: Path, source: str, expected: int) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert len(_unexplained(path, tmp_path)) == expected
