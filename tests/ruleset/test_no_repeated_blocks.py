"""No block of 6 or more lines repeats across the bundled ruleset's documents (blank and comment
lines aside): what several documents share is written once, in a base they are ``based_on``."""
from __future__ import annotations

import re

import pytest

from interpreter.documents.resources import bundled_ruleset

BLOCK = 6
SEPARATOR = re.compile(r"^---\s*$", re.M)


def documents() -> list[tuple[str, int, list[tuple[int, str]]]]:
    """(file, first line, [(line number, text)]) of every document, blank and comment lines left out."""
    found = []
    for path in sorted(bundled_ruleset().glob("*.yaml")):
        number, current = 0, []
        start = 1
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SEPARATOR.match(line):
                found.append((path.name, start, current))
                current, start = [], number + 1
            elif line.strip() and not line.lstrip().startswith("#"):
                current.append((number, line.rstrip()))
        found.append((path.name, start, current))
    return found


def repeated_blocks(docs: list[tuple[str, int, list[tuple[int, str]]]]) -> list[str]:
    """Each block of BLOCK lines written in two documents, as 'file:line = file:line'."""
    first: dict[tuple[str, ...], tuple[int, str, int]] = {}
    found: dict[tuple[int, int], str] = {}
    for index, (name, _, lines) in enumerate(docs):
        for i in range(len(lines) - BLOCK + 1):
            block = tuple(text for _, text in lines[i:i + BLOCK])
            seen = first.setdefault(block, (index, name, lines[i][0]))
            if seen[0] != index and (seen[0], index) not in found:
                found[(seen[0], index)] = f"{seen[1]}:{seen[2]} = {name}:{lines[i][0]}: {block[0].strip()}"
    return sorted(found.values())


@pytest.mark.parametrize("text, count", [
    ("a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n---\na: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n", 1),
    ("a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n---\na: 1\nb: 2\n# a comment\n\nc: 3\nd: 4\ne: 5\nf: 6\n", 1),
    ("a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n---\na: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 7\n", 0),
])
def test_the_check_finds_a_repeated_block(text, count):
    docs, current = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line == "---":
            docs.append(("t.yaml", 1, current))
            current = []
        elif line.strip() and not line.startswith("#"):
            current.append((number, line))
    docs.append(("t.yaml", 1, current))
    assert len(repeated_blocks(docs)) == count


def test_no_block_repeats_across_the_bundled_documents():
    assert repeated_blocks(documents()) == []
