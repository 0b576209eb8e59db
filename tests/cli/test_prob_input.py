"""``prob RULE --input FILE``: an error about one of the input's values is located at its place
in the file (or in standard input's text), as ``run`` locates it; a value a ``--var`` set over the
file is the argument's, never placed in the file. Each case a row: the input text, the --var
arguments, the code and where the error must point."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from interpreter.cli import main

GOOD_ITEM = "item: {materials: [鋼], quality: 傑作}\n"

# (name, input text, --var pairs, from stdin, code, the place the message starts with)
CASES = [
    ("a wrong type in the file", 'intellect: "x"\n' + GOOD_ITEM, [], False, "MPR500", "{file}:1:12 (intellect)"),
    ("a wrong value deep in the file", "intellect: 12\nitem: {materials: [鋼], quality: 傑作, design: 3}\n", [],
     False, "MPR500", "{file}:2:45 (item.design)"),
    ("the same from standard input", 'intellect: "x"\n' + GOOD_ITEM, [], True, "MPR500", "<stdin>:1:12 (intellect)"),
    ("a --var over the file is the argument's", 'intellect: 12\n' + GOOD_ITEM, ["intellect=x"], False,
     "MPR500", "intellect:"),
    ("a --var beside it leaves the file's places", 'intellect: "x"\n' + GOOD_ITEM, ["item.quality=傑作"],
     False, "MPR500", "{file}:1:12 (intellect)"),
]


@pytest.mark.parametrize("name,text,pairs,stdin,code,where", CASES, ids=[c[0] for c in CASES])
def test_prob_locates_an_input_error_as_run_does(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch, name: str, text: str,
                                                 pairs: list[str], stdin: bool, code: str, where: str) -> None:
    file = tmp_path / "in.yaml"
    file.write_text(text, encoding="utf-8")
    given = ["--input", "-"] if stdin else ["--input", str(file)]
    if stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))
    extra = [arg for pair in pairs for arg in ("--var", pair)]
    status = main(["prob", "procurement.check", *given, *extra])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith(where.format(file=file)), err
    assert code in err.splitlines()[0]
    if not stdin and not pairs:  # run, given the same file, points at the same place
        assert main(["run", "procurement.check", *given]) == 1
        assert capsys.readouterr().err.splitlines()[0].split(" MPR")[0] == err.splitlines()[0].split(" MPR")[0]
