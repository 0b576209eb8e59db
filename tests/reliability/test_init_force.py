"""``campaign init --force`` replaces a campaign atomically: the new one is made whole in a
temporary file, synced and renamed over the old one. Killed at every SQL statement and at every
file-system step, on a full disk, or run six times at once, it leaves the old campaign or a new
one, whole, never neither, and no temporary file behind a finished run."""
from __future__ import annotations

import io
import os
import signal
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from campaign_support import CHARS, make_campaign, shared_ruleset  # noqa: E402
from test_crash_safety import AFTER_COMMIT, fresh, integrity, journal, run_forked  # noqa: E402

from interpreter.campaign import commands, files as files_module  # noqa: E402
from interpreter.cli import main  # noqa: E402
from interpreter.solvers.cards import invariant_problems  # noqa: E402
from interpreter.campaign.store import Store  # noqa: E402
from rules_dsl.errors import EXIT_STATE, MprError  # noqa: E402

import yaml  # noqa: E402

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("force")
    path = Path(make_campaign(tmp, seed=1))
    assert main(["campaign", "sleep", str(path), "alice", "--hours", "8", "--seed", "1"]) == 0
    return path


def init_argv(path: Path, seed: int = 5) -> list[str]:
    chars = path.parent / "chars_force.yaml"
    if not chars.exists():
        chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    return ["campaign", "init", str(path), "--characters", str(chars), "--ruleset",
            str(shared_ruleset()), "--seed", str(seed), "--force"]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or ".tmp-" in p.name)


def whole(path: Path) -> dict:
    assert integrity(path) == "ok"
    with Store.open(str(path)) as campaign:
        state = campaign.load()
    assert invariant_problems(state.cards, state.deck_spec()) == ([], [])
    return state.dump()


def _kill_at_step(name: str, when: str):
    """A setup that kills the process before or after one file-system step of the swap."""
    def setup() -> None:
        holder = files_module if hasattr(files_module, name) else os
        target = getattr(holder, name)

        def step(*args, **kwargs):
            if when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            result = target(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
            return result
        setattr(holder, name, step)
    return setup


STEPS = [("fsync", "before"), ("fsync", "after"), ("replace", "before"), ("replace", "after"),
         ("close_guard", "before"), ("close_guard", "after")]


def test_killed_at_every_step_leaves_the_old_or_the_new_campaign(base: Path, tmp_path: Path,
                                                                 capsys) -> None:
    before = (whole(base), journal(base))
    reference = fresh(base, tmp_path, "reference.db")
    status, count, err = run_forked(init_argv(reference))
    assert status == 0, err
    after = (whole(reference), journal(reference))
    assert after != before and after[1] == ["init"]
    seen = {"old": 0, "new": 0}
    points = [("statement", n) for n in [*range(1, count + 1), AFTER_COMMIT]] + \
             [("step", s) for s in STEPS]
    for n, (what, point) in enumerate(points):
        folder = tmp_path / f"k{n}"
        folder.mkdir()
        path = fresh(base, folder, "c.db")
        if what == "statement":
            outcome = run_forked(init_argv(path), kill_at=point)
        else:
            outcome = run_forked(init_argv(path), setup=_kill_at_step(*point))
        assert outcome[0] is None, f"not killed at {what} {point}"
        state = (whole(path), journal(path))
        assert state in (before, after), (what, point)
        seen["old" if state == before else "new"] += 1
        assert main(["campaign", "show", str(path)]) == 0
    capsys.readouterr()
    assert seen["old"] >= count and seen["new"] >= 2, seen


def test_a_full_disk_leaves_the_old_campaign_and_no_stub(base: Path, tmp_path: Path) -> None:
    import resource

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, resource.RLIM_INFINITY))

    path = fresh(base, tmp_path, "c.db")
    before = (whole(path), journal(path))
    status, _, err = run_forked(init_argv(path), setup=limit)
    assert status == EXIT_STATE and "MPR629" in err and "disk" in err and "full" in err, err
    assert (whole(path), journal(path)) == before and leftovers(tmp_path) == []
    fresh_path = tmp_path / "new" / "n.db"
    fresh_path.parent.mkdir()
    status, _, err = run_forked(init_argv(fresh_path), setup=limit)
    assert status == EXIT_STATE and not fresh_path.exists(), err  # no stub of a new campaign
    assert [p.name for p in fresh_path.parent.iterdir()] == ["chars_force.yaml"]


def test_six_concurrent_runs_leave_one_whole_new_campaign(base: Path, tmp_path: Path) -> None:
    path = fresh(base, tmp_path, "c.db")
    # Every argv is made before the first fork: init_argv writes the characters file, and
    # six children writing it at once would read each other's half-written copies.
    argvs = [init_argv(path, seed=10 + seed) for seed in range(6)]
    children = []
    for n, argv in enumerate(argvs):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            status = 99
            try:
                with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                    status = main(argv)
                if status not in (0, EXIT_STATE) or (status and "MPR625" not in err.getvalue()):
                    (tmp_path / f"unexpected-{n}.txt").write_text(f"{status}: {err.getvalue()}")
                    status = 98
            finally:
                os._exit(status)
        children.append(pid)
    statuses = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    unexpected = [p.read_text() for p in sorted(tmp_path.glob("unexpected-*.txt"))]
    assert set(statuses) <= {0, EXIT_STATE} and 0 in statuses, (statuses, unexpected)
    state = whole(path)
    assert journal(path) == ["init"] and state != whole(base)
    assert leftovers(tmp_path) == []


def test_a_seed_past_what_sqlite_keeps_leaves_the_old_campaign(base: Path, tmp_path: Path) -> None:
    path = fresh(base, tmp_path, "c.db")
    before = (whole(path), journal(path))
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    with pytest.raises(MprError) as caught:
        commands.init(str(path), str(chars), ruleset=str(shared_ruleset()), seed=2**63, force=True)
    assert caught.value.code == "MPR681"
    assert (whole(path), journal(path)) == before and leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_only_a_regular_file_is_replaced(kind: str, tmp_path: Path) -> None:
    path = {"directory": tmp_path / "d.db", "fifo": tmp_path / "f.db", "device": Path("/dev/null")}[kind]
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(MprError) as caught:
        Store.refuse_existing(str(path), True)
    assert caught.value.code == "MPR680" and caught.value.exit_code == EXIT_STATE
    with pytest.raises(MprError):
        Store.build(str(path), lambda store: None, force=True)
    assert path.exists() and not path.is_file() and leftovers(tmp_path) == []


def test_a_stray_wal_beside_a_file_that_is_not_sqlite_is_not_read(base: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    path.write_bytes(b"not a campaign")
    wal = Path(str(base) + "-wal")
    conn = sqlite3.connect(base)  # gives the old campaign a WAL with content
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE campaign SET clock_minutes = clock_minutes")
    if wal.exists():
        (tmp_path / "c.db-wal").write_bytes(wal.read_bytes())
    conn.close()
    status, _, err = run_forked(init_argv(path))
    assert status == 0, err
    assert journal(path) == ["init"] and whole(path)


def test_a_damaged_sqlite_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 8)  # SQLite's header, then noise
    (tmp_path / "c.db-wal").write_bytes(b"noise")
    status, _, err = run_forked(init_argv(path))
    assert status == 0, err
    assert journal(path) == ["init"] and whole(path) and leftovers(tmp_path) == []


def _io_error() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorcode = 10  # type: ignore[attr-defined]  # SQLITE_IOERR
    return exc


def _not_a_database() -> sqlite3.DatabaseError:
    exc = sqlite3.DatabaseError("file is not a database")
    exc.sqlite_errorcode = 26  # type: ignore[attr-defined]  # SQLITE_NOTADB
    return exc


# What the swap does when SQLite fails on the old file: (the error, whether another command
# replaced the file after it was first seen) -> the code raised ("" = replaced, None = SQLite's
# own error raised as it is). Only a file SQLite calls damaged is replaced without its lock.
SWAP_FAILURES = [
    ("locked", False, "MPR625"),
    ("io", False, None),
    ("io", True, "MPR625"),
    ("damaged", False, ""),
    ("damaged", True, "MPR625"),
]


@pytest.mark.parametrize("error, replaced, expected", SWAP_FAILURES)
def test_a_failing_swap_never_removes_a_live_wal(error: str, replaced: bool, expected: str | None,
                                                 base: Path, tmp_path: Path) -> None:
    path = fresh(base, tmp_path, "c.db")
    old = os.stat(path)
    if replaced:  # another init --force renamed its new file over the old one meanwhile
        fresh(base, tmp_path, "other.db").replace(path)
    live = {suffix: f"{suffix} of a live connection".encode() for suffix in ("-wal", "-shm")}
    for suffix, content in live.items():
        Path(f"{path}{suffix}").write_bytes(content)
    temp = fresh(base, tmp_path, "new.tmp")

    def failing(_path: str, _mode: str) -> sqlite3.Connection:
        raise {"locked": sqlite3.OperationalError("database is locked"), "io": _io_error(),
               "damaged": _not_a_database()}[error]

    if expected == "":
        files_module.swap(str(temp), str(path), old, failing)
        assert not temp.exists() and not any(Path(f"{path}{s}").exists() for s in live)
        return
    with pytest.raises(MprError if expected else sqlite3.OperationalError) as caught:
        files_module.swap(str(temp), str(path), old, failing)
    if expected:
        assert caught.value.code == expected  # type: ignore[union-attr]
    assert temp.exists() and all(Path(f"{path}{s}").read_bytes() == c for s, c in live.items())
