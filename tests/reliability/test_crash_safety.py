"""Crash safety of campaign files: a command killed (SIGKILL) before every one of its SQL statements,
right after its commit, or at random moments leaves the file at the state before or after it,
never between; a full disk (SQLite's page limit, a file-size limit, a tiny tmpfs) leaves the
previous state intact and says so with a coded error, exit 3.

Each command runs in a forked child (the modules are already imported, so a run costs
milliseconds); the child kills itself from SQLite's statement trace callback."""
from __future__ import annotations

import io
import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from campaign_support import dump, make_campaign  # noqa: E402

from interpreter.campaign import store as store_module  # noqa: E402
from interpreter.campaign.store import Store  # noqa: E402
from interpreter.cli import main  # noqa: E402
from rules_dsl.errors import EXIT_STATE  # noqa: E402

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

COMMANDS = {
    "sleep": ["sleep", "{file}", "alice", "--hours", "8", "--seed", "1"],
    "circulate": ["circulate", "{file}", "alice", "--all", "--seed", "2"],
    "dawn": ["dawn", "{file}", "--seed", "3"],
    "undo": ["undo", "{file}"],
    "show": ["show", "{file}"],
}
AFTER_COMMIT = -1


def argv(command: str, path: Path) -> list[str]:
    return ["campaign"] + [a.replace("{file}", str(path)) for a in COMMANDS[command]]


def _child(args: list[str], kill_at: int | None, setup, report: int) -> None:
    """In the forked child: trace the statements, kill at ``kill_at``, run the command."""
    count = 0
    connect = store_module._connect

    def traced(path: str, mode: str) -> sqlite3.Connection:
        conn = connect(path, mode)

        def each(statement: str) -> None:
            nonlocal count
            count += 1
            if count == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        conn.set_trace_callback(each)
        return conn

    store_module._connect = traced
    if kill_at == AFTER_COMMIT:
        commit = Store._commit

        def commit_then_die(self: Store) -> None:
            commit(self)
            os.kill(os.getpid(), signal.SIGKILL)

        Store._commit = commit_then_die
    if setup is not None:
        setup()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(args)
    os.write(report, f"{status} {count}\n{err.getvalue()}".encode())
    os._exit(0)


def run_forked(args: list[str], kill_at: int | None = None, setup=None,
               kill_after: float | None = None) -> tuple[int | None, int, str]:
    """(exit status or None if killed, statements run, standard error) of ``mprules ARGS``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            _child(args, kill_at, setup, write)
        finally:
            os._exit(99)
    os.close(write)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as stream:
        text = stream.read().decode()
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return None, 0, ""
    assert os.WEXITSTATUS(status) == 0, text
    head, _, err = text.partition("\n")
    code, count = head.split()
    return int(code), int(count), err


def journal(path: Path) -> list[str]:
    with Store.open(str(path)) as campaign:
        return [e.command for e in campaign.entries()]


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign with a history (so that undo has something to revert)."""
    tmp = tmp_path_factory.mktemp("crash")
    path = Path(make_campaign(tmp))
    assert main(argv("sleep", path)) == 0
    return path


def fresh(base: Path, folder: Path, name: str) -> Path:
    target = folder / name
    shutil.copy(base, target)
    return target


@pytest.mark.parametrize("command", ["circulate", "dawn", "sleep", "undo"])
def test_killed_before_any_statement_or_after_the_commit(command: str, base: Path,
                                                         tmp_path: Path, capsys) -> None:
    before, before_log = dump(base), journal(base)
    reference = fresh(base, tmp_path, "reference.db")
    status, count, err = run_forked(argv(command, reference))
    assert status == 0, err
    after, after_log = dump(reference), journal(reference)
    assert after != before and len(after_log) == len(before_log) + 1
    seen: list[str] = []
    for point in [*range(1, count + 1), AFTER_COMMIT]:
        path = fresh(base, tmp_path, f"k{point}.db")
        outcome = run_forked(argv(command, path), kill_at=point)
        assert outcome[0] is None, f"the command was not killed at statement {point}"
        assert integrity(path) == "ok"
        state, log = dump(path), journal(path)
        assert (state, log) in ((before, before_log), (after, after_log)), point
        seen.append("before" if state == before else "after")
        assert main(argv("show", path)) == 0  # the file opens and works on
    capsys.readouterr()
    # killed before the commit: nothing happened; at or after it (the statements that keep the
    # state it wrote for the next reading among them): all of it
    commit = seen.index("after")
    assert commit >= 1 and seen == ["before"] * commit + ["after"] * (len(seen) - commit), seen


@pytest.mark.parametrize("command", ["sleep", "undo"])
def test_killed_at_random_moments(command: str, base: Path, tmp_path: Path) -> None:
    before = dump(base)
    reference = fresh(base, tmp_path, "reference.db")
    run_forked(argv(command, reference))
    after = dump(reference)
    chance = random.Random(9)
    for n in range(12):
        path = fresh(base, tmp_path, f"t{n}.db")
        status, _, _ = run_forked(argv(command, path), kill_after=chance.uniform(0, 0.08))
        assert integrity(path) == "ok"
        assert dump(path) in (before, after)
        if status is not None:
            assert status == 0 and dump(path) == after


# -- a full disk ------------------------------------------------------------------------------------

def _page_limit() -> None:
    """SQLite may not grow the file: SQLITE_FULL on the first new page. A journal entry keeps
    what changed (a few hundred bytes, often room enough in the pages there are), so the
    command's entry is given a result of 20 kB: it needs new pages."""
    connect = store_module._connect
    journal = Store.journal

    def padded(self: Store, command: str, inputs: dict, seed, choices, result, before):
        return journal(self, command, inputs, seed, choices, {**result, "pad": "x" * 20_000}, before)

    Store.journal = padded

    def limited(path: str, mode: str) -> sqlite3.Connection:
        conn = connect(path, mode)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    store_module._connect = limited


def _file_size_limit() -> None:
    """The process may not write past 1 kB in any file from the command's transaction on (the
    write-ahead log grows by a 4 kB page): EFBIG, as on a full disk."""
    transaction = Store.transaction
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    def limited(self: Store):
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
        return transaction(self)

    Store.transaction = limited


@pytest.mark.parametrize("setup", [_page_limit, _file_size_limit], ids=["page-limit", "file-size"])
@pytest.mark.parametrize("command", ["sleep", "circulate", "undo"])
def test_a_full_disk_keeps_the_previous_state(command: str, setup, base: Path,
                                              tmp_path: Path) -> None:
    before, before_log = dump(base), journal(base)
    path = fresh(base, tmp_path, "full.db")
    status, _, err = run_forked(argv(command, path), setup=setup)
    assert status == EXIT_STATE, err
    assert "MPR6" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert integrity(path) == "ok"
    assert dump(path) == before and journal(path) == before_log
    assert main(argv(command, path)) == 0  # room again: the same command now succeeds


@pytest.mark.parametrize("lang, words", [("en", ["disk is full", "as it was before"]),
                                         ("ja", ["disk is full", "実行前の状態のまま"])])
def test_a_full_disk_says_the_campaign_is_unchanged(lang: str, words: list[str], base: Path,
                                                     tmp_path: Path) -> None:
    path = fresh(base, tmp_path, "full.db")
    status, _, err = run_forked(["--lang", lang, *argv("sleep", path)], setup=_page_limit)
    assert status == EXIT_STATE and err.count("MPR629") == 1, err
    assert all(word in err for word in words), err


@pytest.fixture
def tiny_tmpfs(tmp_path: Path):
    """A 512 kB tmpfs mounted for the test (root only; skipped where mounting is not allowed)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + done.stderr.decode().strip())
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_tmpfs_keeps_the_previous_state(base: Path, tiny_tmpfs: Path) -> None:
    path = fresh(base, tiny_tmpfs, "c.db")
    before, before_log = dump(path), journal(path)
    filler = tiny_tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the file system to the last byte
        for block in (65536, 4096, 512, 1):
            while True:
                try:
                    os.write(fd, b"\0" * block)
                except OSError:
                    break
    finally:
        os.close(fd)
    status, _, err = run_forked(argv("sleep", path))
    assert status == EXIT_STATE, err
    assert "MPR629" in err and "disk is full" in err and len(err.strip().splitlines()) == 1, err
    assert run_forked(argv("show", path))[0] == 0  # reading works on the full disk
    filler.unlink()
    assert integrity(path) == "ok"
    assert dump(path) == before and journal(path) == before_log
    assert main(argv("sleep", path)) == 0


def test_two_processes_driving_one_campaign_lose_nothing(base: Path, tmp_path: Path) -> None:
    """Two processes each advance the clock ten times and sleep, at once: every command is kept."""
    path = fresh(base, tmp_path, "shared.db")
    before, log = dump(path), journal(path)
    children = []
    for pc in ("alice", "bob"):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            status = 1
            try:
                with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                    results = [main(["campaign", "advance", str(path), "--minutes", "1"])
                               for _ in range(10)]
                    results.append(main(argv("sleep", path)[:3] + [pc, "--hours", "1"]))
                status = 0 if results == [0] * 11 else 1
                if status:
                    (tmp_path / f"unexpected-{pc}.txt").write_text(f"{results}: {err.getvalue()}")
            finally:
                os._exit(status)
        children.append(pid)
    statuses = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    assert statuses == [0, 0], [p.read_text() for p in sorted(tmp_path.glob("unexpected-*.txt"))]
    after = dump(path)
    assert after["clock_minutes"] == before["clock_minutes"] + 20
    assert len(journal(path)) == len(log) + 22 and integrity(path) == "ok"
