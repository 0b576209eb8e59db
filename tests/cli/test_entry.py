"""``interpreter.cli.entry``, the installed command's function: ``main()``'s status and output,
then the end of the process without the interpreter's teardown. Whatever an exit must do still
happens: the ``atexit`` functions run (once), standard output and error are flushed, and with
another thread running the interpreter's own exit waits for it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (arguments, exit status, a text standard output holds, a text standard error holds)
CASES = [
    (["--version"], 0, "mprules", ""),
    (["eval", "1 + 2"], 0, "3", ""),
    (["eval", "1 +"], 1, "", "MPR"),
    (["no-such-verb"], 2, "", "no-such-verb"),
    (["eval", "d6", "--dice", "9"], 1, "", "MPR151"),
    (["run", "no.such.rule"], 1, "", "MPR"),
]

# registers an atexit function that writes a file, then runs the command the way the console
# script does (``sys.exit(entry())``)
SCRIPT = """
import atexit, sys
def said_goodbye():
    with open({mark!r}, "a", encoding="utf-8") as out:
        out.write("bye\\n")
atexit.register(said_goodbye)
{before}
from interpreter.cli import entry
sys.argv = ["mprules", *{argv!r}]
sys.exit(entry())
"""


def _run(tmp_path: Path, argv: list[str], before: str = "", **kw: object) -> tuple[subprocess.CompletedProcess, str]:
    mark = tmp_path / "atexit.txt"
    code = SCRIPT.format(mark=str(mark), argv=argv, before=before)
    env = {**os.environ, "MPRULES_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "rulesets", env=env,
                          capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload]
    return done, mark.read_text(encoding="utf-8") if mark.exists() else ""


@pytest.mark.parametrize(("argv", "status", "out", "err"), CASES)
def test_status_output_and_atexit(tmp_path: Path, argv: list[str], status: int, out: str, err: str) -> None:
    done, mark = _run(tmp_path, argv)
    assert done.returncode == status, done.stderr
    assert out in done.stdout
    assert err in done.stderr
    assert "Traceback" not in done.stderr
    assert mark == "bye\n"  # the atexit function ran, and once


def test_a_large_output_is_flushed_whole(tmp_path: Path) -> None:
    # an output far past a pipe's buffer: every byte is written before the process ends
    done, _ = _run(tmp_path, ["prob", "10d6"])
    assert done.returncode == 0, done.stderr
    direct = subprocess.run([sys.executable, "-c", "import sys; from interpreter.cli import main; "
                             "sys.exit(main(['prob', '10d6']))"], cwd=ROOT / "rulesets", capture_output=True,
                            text=True, timeout=120,
                            env={**os.environ, "MPRULES_CACHE_DIR": str(tmp_path / "cache2"), "LANG": "C.UTF-8"})
    assert done.stdout == direct.stdout
    assert len(done.stdout) > 1000


def test_another_thread_is_waited_for(tmp_path: Path) -> None:
    # a thread that is still running when main returns: the interpreter's own exit joins it, so
    # what it writes after main returned is not lost
    late = tmp_path / "late.txt"
    before = ("import threading, time\n"
              "def late():\n"
              "    time.sleep(0.3)\n"
              f"    open({str(late)!r}, 'w').write('done')\n"
              "threading.Thread(target=late).start()\n")
    done, mark = _run(tmp_path, ["--version"], before=before)
    assert done.returncode == 0, done.stderr
    assert late.read_text() == "done"
    assert mark == "bye\n"


def test_a_closed_output_ends_quietly(tmp_path: Path) -> None:
    # the reader went away before the command wrote (`mprules ... | head -c0`): no traceback
    mark = tmp_path / "atexit.txt"
    code = SCRIPT.format(mark=str(mark), argv=["prob", "10d6"], before="")
    env = {**os.environ, "MPRULES_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "rulesets", env=env, stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(writer)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Exception ignored" not in done.stderr
