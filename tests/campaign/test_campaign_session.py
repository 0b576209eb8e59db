"""The scripted campaign session of the README: its chars.yaml and each `$ mprules campaign ...` command
are run in order, and each command's output must be exactly what the document prints."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from interpreter.cli import main

DOC = Path(__file__).resolve().parents[2] / "README.md"


def blocks(language: str) -> list[str]:
    """The code blocks of ``language`` in the README's campaign-session section."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## A campaign session"):]
    section = section[:section.find("\n## ", 1)] if "\n## " in section[1:] else section
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def session() -> list[tuple[str, str]]:
    """(command, expected output) pairs of the console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in blocks("console")[0].splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in steps]


def test_the_session_has_every_part():
    commands = [shlex.split(c)[2] for c, _ in session()]
    for needed in ("init", "sleep", "dawn", "circulate", "undo", "export"):
        assert needed in commands


def test_the_documented_session_prints_what_the_document_says(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPRULES_LANG", "en")
    (tmp_path / "chars.yaml").write_text(blocks("yaml")[0], encoding="utf-8")
    for command, expected in session():
        argv = shlex.split(command)
        assert argv[0] == "mprules"
        code = main(argv[1:])
        out = capsys.readouterr()
        assert (code, out.err) == (0, ""), command
        assert out.out.rstrip("\n") == expected, command


@pytest.mark.parametrize("command", [c for c, _ in session()])
def test_every_documented_command_is_a_campaign_command(command):
    assert shlex.split(command)[:2] == ["mprules", "campaign"]
