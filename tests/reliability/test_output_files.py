"""Every option that names a file to write (``doc -o``, ``prob --svg``, ``export ... -o``,
``campaign export --output``) refuses a directory, a FIFO or a device (MPR054, exit 3, naming
the option) without opening it, and writes whole or not at all: a failure leaves the old file
as it was and no temporary file behind."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from campaign_support import make_campaign  # noqa: E402

from interpreter.cli import main  # noqa: E402
from interpreter.cli import output  # noqa: E402
from rules_dsl.errors import EXIT_STATE  # noqa: E402

# (the command with {out} for the file, the option named, the code of a file that cannot be written)
WRITERS = [
    (["doc", "-o", "{out}"], "--output", "MPR960"),
    (["doc", "--html", "--output", "{out}"], "--output", "MPR960"),
    (["prob", "2d6", "--svg", "{out}"], "--svg", "MPR016"),
    (["prob", "3MP15C10", "--svg", "{out}"], "--svg", "MPR016"),
    (["export", "bcdice", "cohabitation.leisure.city", "-o", "{out}"], "--output", "MPR915"),
    (["export", "ccfolia", "--var", "item={materials: [魔煌銀], quality: 標準, design: null, ma_gear: null, "
      "vehicle: null}", "--output", "{out}"], "--output", "MPR915"),
    (["campaign", "export", "{campaign}", "--output", "{out}"], "--output", "MPR042"),
]
IDS = [" ".join(w[0][:2]) + (" html" if "--html" in w[0] else "") + (" check" if "3MP15C10" in w[0] else "")
       for w in WRITERS]


def argv(command: list[str], out: Path, tmp: Path) -> list[str]:
    campaign = tmp / "c.db"
    if "{campaign}" in command and not campaign.exists():
        make_campaign(tmp)
    return [a.replace("{out}", str(out)).replace("{campaign}", str(campaign)) for a in command]


def special(kind: str, tmp: Path) -> Path:
    if kind == "device":
        return Path(os.devnull)
    path = tmp / f"a_{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
@pytest.mark.parametrize("command, option, _code", WRITERS, ids=IDS)
def test_what_is_not_a_regular_file_is_refused(command: list[str], option: str, _code: str,
                                               kind: str, tmp_path: Path, capsys) -> None:
    target = special(kind, tmp_path)
    before = os.stat(target)
    assert main(["--lang", "en", *argv(command, target, tmp_path)]) == EXIT_STATE
    err = capsys.readouterr().err
    assert "MPR054" in err and f"{option} {target}" in err and "not a regular file" in err
    after = os.stat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("command, option, code", WRITERS, ids=IDS)
def test_a_failed_write_leaves_the_old_file(command: list[str], option: str, code: str,
                                            tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "out.txt"
    out.write_text("the old file\n", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    args = argv(command, out, tmp_path)
    monkeypatch.setattr(output.os, "fsync", full)
    assert main(["--lang", "en", *args]) == EXIT_STATE
    err = capsys.readouterr().err
    assert code in err and option in err and str(out) in err
    assert out.read_text(encoding="utf-8") == "the old file\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("command, option, code", WRITERS, ids=IDS)
def test_a_write_replaces_the_file_whole_and_keeps_its_mode(command: list[str], option: str, code: str,
                                                            tmp_path: Path, capsys) -> None:
    out = tmp_path / "out.txt"
    out.write_text("x" * 100000, encoding="utf-8")  # longer than any output: no old tail is left
    out.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(out)
    assert main(argv(command, link, tmp_path)) == 0
    text = out.read_text(encoding="utf-8")
    assert text and "x" * 1000 not in text
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and link.is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_new_file_gets_the_usual_mode(tmp_path: Path) -> None:
    out = tmp_path / "new.md"
    assert main(["doc", "-o", str(out)]) == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_the_refusal_speaks_japanese(tmp_path: Path, capsys) -> None:
    os.mkfifo(tmp_path / "f")
    assert main(["--lang", "ja", "prob", "2d6", "--svg", str(tmp_path / "f")]) == EXIT_STATE
    captured = capsys.readouterr()
    assert "MPR054" in captured.err and "名前付きパイプ" in captured.err and "--svg" in captured.err
    assert captured.out == ""  # refused before any work
