"""The reading commands (show, log, export) print the same bytes and exit with the same status
whether they read the file itself (the cache off: the way they read before the state was kept) or
the state kept for that version of the file (``interpreter.campaign.kept``), for a table of
campaign states, damaged ones included (refused with their code each time, nothing kept); and a
file changed in any way after its state was kept is read and checked again."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from campaign_support import make_campaign
from interpreter.campaign import commands, kept
from interpreter.campaign.store import Store
from interpreter.cli import main
from rules_dsl import cachefile

AGE_SECONDS = cachefile.RACY_SECONDS + 8  # a file last changed this long ago can be kept


def _sqlite(path: str, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()


def _played(path: str) -> None:
    with Store.open(path) as store:
        commands.sleep(store, "alice", 8, seed=3)
        commands.circulate(store, "bob", take_all=True, seed=4)
        commands.advance(store, 1500, seed=5)
        commands.undo(store)


# (name, what is done to a new campaign, the code it is refused with or None; "CODE VERB": by that
# verb only, the others not reading what is damaged)
STATES = [
    ("new", None, None),
    ("played", _played, None),
    ("a-rule-left-out", "options", None),
    ("card-missing", "DELETE FROM cards WHERE card = (SELECT card FROM cards WHERE place = 'deck' LIMIT 1);",
     "MPR627"),
    ("card-not-in-the-deck", "UPDATE cards SET card = 'ZZ' WHERE card = 'SK';", "MPR627"),
    ("bad-json-in-a-character", "UPDATE characters SET data = '{not json' WHERE id = 'alice';", "MPR620"),
    ("hostile-view", "CREATE VIEW v AS SELECT * FROM cards;", "MPR620"),
    ("bad-json-in-the-journal", "INSERT INTO journal (command, inputs, seed, choices, result) "
                                "VALUES ('dawn', '{', 1, '[]', '{}');", "MPR620 log"),
    ("not-sqlite", b"not a campaign at all", "MPR620"),
]

VERBS = [["show"], ["show", "--format", "json"], ["show", "--lang", "ja"], ["log"], ["log", "--last", "2"],
         ["log", "--format", "json"], ["export"], ["export", "--format", "json"]]


def _campaign(tmp: Path, how: object) -> str:
    if how == "options":
        path = make_campaign(tmp, seed=2, adopt={"circulation.sleep": False})
    else:
        path = make_campaign(tmp, seed=2)
    if callable(how):
        how(path)
    elif isinstance(how, str) and how != "options":
        _sqlite(path, how)
    elif isinstance(how, bytes):
        Path(path).write_bytes(how * 500)
    _age(path)
    return path


def _age(path: str) -> None:
    then = time.time() - AGE_SECONDS
    os.utime(path, (then, then))


def _run(argv: list[str], capsys, monkeypatch, cache: bool) -> tuple[int, str, str]:
    monkeypatch.setattr(cachefile, "_disabled", False)
    if cache:
        monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    else:
        monkeypatch.setenv(cachefile.DISABLE_ENV, "1")
    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cachefile.DIR_ENV, str(folder))
    return folder


def _kept_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("campaign-*.bin")) if folder.exists() else []


@pytest.mark.parametrize("name, how, code", STATES, ids=[s[0] for s in STATES])
def test_reading_prints_the_same_from_the_file_and_from_the_kept_state(
        tmp_path, capsys, monkeypatch, cache_dir, name, how, code) -> None:
    path = _campaign(tmp_path, how)
    for verb in VERBS:
        argv = ["campaign", verb[0], path, *verb[1:]]
        read = _run(argv, capsys, monkeypatch, cache=False)  # the file itself, every time
        first = _run(argv, capsys, monkeypatch, cache=True)  # read, checked and kept
        again = _run(argv, capsys, monkeypatch, cache=True)  # from what was kept
        kept_text = _run(argv, capsys, monkeypatch, cache=True)  # export: the text kept by `again`
        assert first == read and again == read and kept_text == read, verb
        refused, _, by = (code or "").partition(" ")
        if not refused or by not in ("", verb[0]):
            assert read[0] == 0 and read[1], verb
        else:
            assert read[0] == 3 and refused in read[2], verb
    assert len(_kept_files(cache_dir)) == (code is None or " " in code)


def test_a_state_is_kept_only_for_a_file_long_unchanged(tmp_path, capsys, monkeypatch, cache_dir) -> None:
    path = make_campaign(tmp_path, seed=2)  # just written: its state is read, never kept
    for _ in range(2):
        assert _run(["campaign", "show", path], capsys, monkeypatch, cache=True)[0] == 0
    assert _kept_files(cache_dir) == []
    _age(path)
    assert _run(["campaign", "show", path], capsys, monkeypatch, cache=True)[0] == 0
    assert len(_kept_files(cache_dir)) == 1
    assert kept.kept_parts(kept.version_of(path)) is not None


# What may happen to a file after its state was kept: (name, change, the code then, or None)
CHANGES = [
    ("a command", "sleep", None),
    ("cards deleted", "DELETE FROM cards WHERE place = 'discard' OR place = 'held';", "MPR627"),
    ("damaged, then its time set back", "UPDATE characters SET data = '[1]' WHERE id = 'bob';", "MPR620"),
    ("a -wal beside it", "wal", None),
    ("an empty -wal beside it", "empty wal", None),
]


@pytest.mark.parametrize("name, change, code", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_file_changed_after_its_state_was_kept_is_read_again(
        tmp_path, capsys, monkeypatch, cache_dir, name, change, code) -> None:
    path = make_campaign(tmp_path, seed=2)
    _age(path)
    before = _run(["campaign", "show", path, "--format", "json"], capsys, monkeypatch, cache=True)
    assert before[0] == 0 and kept.kept_parts(kept.version_of(path)) is not None
    stamp = os.stat(path)
    writer = None
    if change == "sleep":
        with Store.open(path) as store:
            commands.sleep(store, "alice", 8, seed=1)
    elif change == "wal":  # another command's connection still open: what it wrote is in the -wal
        writer = Store.open(path)
        commands.sleep(writer, "alice", 8, seed=1)
        assert os.stat(f"{path}-wal").st_size > 0
    elif change == "empty wal":  # left by a reader of SQLite's own: holds nothing, the state is kept
        Path(f"{path}-wal").write_bytes(b"")
    else:
        _sqlite(path, change)
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # size and mtime may be as before
    try:
        after = _run(["campaign", "show", path, "--format", "json"], capsys, monkeypatch, cache=True)
        assert (kept.version_of(path) is None) == (change == "wal")
        assert after == _run(["campaign", "show", path, "--format", "json"], capsys, monkeypatch, cache=False)
    finally:
        if writer is not None:
            writer.close()
    if code is None:
        assert after[0] == 0
    else:
        assert after[0] == 3 and code in after[2]


def test_log_reads_the_journal_of_the_file_itself(tmp_path, capsys, monkeypatch, cache_dir) -> None:
    """A journal entry damaged so that the state's tables stay as they were kept: the entries
    are read from the file, and the damage is found (the version changed: read and checked again)."""
    path = make_campaign(tmp_path, seed=2)
    _played(path)
    _age(path)
    assert _run(["campaign", "log", path], capsys, monkeypatch, cache=True)[0] == 0
    _sqlite(path, "UPDATE journal SET inputs = '{' WHERE seq = 2;")
    status, _, err = _run(["campaign", "log", path, "--last", "5"], capsys, monkeypatch, cache=True)
    assert status == 3 and "MPR620" in err


@pytest.mark.parametrize("files, most", [(2, 3), (3, 3), (5, 3)])
def test_kept_states_at_and_past_the_bound(tmp_path, capsys, monkeypatch, cache_dir, files, most) -> None:
    """At most ``MAX_KEPT_CAMPAIGNS`` states are kept (lowered here): the newest, and the one
    just kept always among them."""
    import interpreter.campaign.limits as limits

    monkeypatch.setattr(limits, "MAX_KEPT_CAMPAIGNS", most)
    paths = []
    for n in range(files):
        folder = tmp_path / f"c{n}"
        folder.mkdir()
        paths.append(make_campaign(folder, seed=2))
        _age(paths[-1])
        assert _run(["campaign", "show", paths[-1]], capsys, monkeypatch, cache=True)[0] == 0
        time.sleep(0.01)  # each kept later than the one before
    assert len(_kept_files(cache_dir)) == min(files, most)
    assert [kept.kept_parts(kept.version_of(p)) is not None for p in paths] == \
        [n >= files - most for n in range(files)]


# -- a reading right after a write: the state the writing command kept (``kept.keep_written``) --

def _reads(path: str, capsys, monkeypatch) -> list[tuple[int, str, str]]:
    """Every reading verb with the cache on, twice (the kept state, then any text kept with it),
    each the same bytes and status as with the cache off; the readings with the cache off."""
    found = []
    for verb in VERBS:
        argv = ["campaign", verb[0], path, *verb[1:]]
        first = _run(argv, capsys, monkeypatch, cache=True)
        again = _run(argv, capsys, monkeypatch, cache=True)
        read = _run(argv, capsys, monkeypatch, cache=False)
        assert first == read and again == read, verb
        found.append(read)
    return found


def _written(path: str, monkeypatch) -> bool:
    """Whether a state kept by a writing command is there for this version of the file."""
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    parts = kept.kept_parts(kept.version_of(path))
    return parts is not None and parts[kept._WRITTEN][1] is True


# Writing commands run one after the other on a new campaign: (name, the commands, the last one's
# exit status: 1 is a refusal, which keeps nothing).
WRITES = [
    ("sleep", [["sleep", "alice", "--hours", "8", "--seed", "3"]], 0),
    ("circulate", [["circulate", "bob", "--all", "--seed", "4"]], 0),
    ("advance past a dawn", [["advance", "--minutes", "1500", "--seed", "5"]], 0),
    ("dawn", [["dawn", "--seed", "6"]], 0),
    ("a command undone", [["sleep", "alice", "--hours", "8", "--seed", "3"], ["undo"]], 0),
    ("repin", [["repin"]], 0),
    ("a rest", [["rest", "long", "--seed", "7"]], 0),
    ("briefings", [["brief", "instant", "alice", "scout"], ["brief", "tense", "bob", "ready", "--new"]], 0),
    ("refused", [["undo"]], 1),
]


@pytest.mark.parametrize("name, writes, status", WRITES, ids=[w[0] for w in WRITES])
def test_a_reading_right_after_a_write_reads_what_the_writer_kept(
        tmp_path, capsys, monkeypatch, cache_dir, name, writes, status) -> None:
    path = make_campaign(tmp_path, seed=2)  # just written, as at the table
    for argv in writes:
        done = _run(["campaign", argv[0], path, *argv[1:]], capsys, monkeypatch, cache=True)
    assert done[0] == status, done
    assert _written(path, monkeypatch) == (status == 0)  # within the same second as the write
    if status == 0:  # the state kept is the one read, in every value, type and order
        import marshal

        with Store.open(path, readonly=True) as store:
            read = store.load().dump()
        assert repr(marshal.loads(kept.kept_parts(kept.version_of(path))["state"])) == repr(read)
    for found in _reads(path, capsys, monkeypatch):
        assert found[0] == 0 and found[1]


class _Clock:
    """``os`` as ``kept`` sees it on a file system whose clock ticks every ``tick_ns`` (FAT's is
    2 s): the times it gives are cut to the tick."""

    def __init__(self, tick_ns: int) -> None:
        self.tick = tick_ns

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def _cut(self, st: os.stat_result) -> SimpleNamespace:
        return SimpleNamespace(st_dev=st.st_dev, st_ino=st.st_ino, st_size=st.st_size,
                               st_mtime_ns=st.st_mtime_ns // self.tick * self.tick,
                               st_ctime_ns=st.st_ctime_ns // self.tick * self.tick)

    def stat(self, path: str) -> SimpleNamespace:
        return self._cut(os.stat(path))

    def fstat(self, fd: int) -> SimpleNamespace:
        return self._cut(os.fstat(fd))


def _edit_times_back(path: str, sql: str) -> None:
    stamp = os.stat(path)
    _sqlite(path, sql)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # the change time cannot be set back


def _copy_over(path: str, backup: str, keep_times: bool) -> None:
    stamp = os.stat(path)
    shutil.copyfile(backup, path)  # the same inode, written again: the state before the command
    if keep_times:
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))


# What may happen right after a write, before the reading: (name, change, clock tick in ns or None,
# whether the writer's state is kept, the code the reading gives or None)
AFTER_WRITE = [
    ("nothing", None, None, True, None),
    ("sqlite3 edit, its time set back", "UPDATE characters SET data = '[1]' WHERE id = 'bob';", None, True,
     "MPR620"),
    ("sqlite3 edit of the cards, its time set back", "UPDATE cards SET card = 'ZZ' WHERE card = 'SK';", None,
     True, "MPR627"),
    ("a copy of the file before the command over it", "copy", None, True, None),
    ("that copy with the file's times", "copy times", None, True, None),
    ("nothing, on a clock of 1,000 s ticks", None, 10**12, False, None),
    ("sqlite3 edit in the same tick of a coarse clock", "UPDATE cards SET card = 'ZZ' WHERE card = 'SK';",
     10**12, False, "MPR627"),
    ("a copy over it in the same tick of a coarse clock", "copy times", 10**12, False, None),
]


@pytest.mark.parametrize("name, change, tick, keeps, code", AFTER_WRITE, ids=[a[0] for a in AFTER_WRITE])
def test_a_change_right_after_a_write_is_another_version(
        tmp_path, capsys, monkeypatch, cache_dir, name, change, tick, keeps, code) -> None:
    path = make_campaign(tmp_path, seed=2)
    backup = str(tmp_path / "before.db")
    shutil.copyfile(path, backup)
    if tick is not None:
        monkeypatch.setattr(kept, "os", _Clock(tick))
    done = _run(["campaign", "circulate", path, "bob", "--all", "--seed", "4"], capsys, monkeypatch, cache=True)
    assert done[0] == 0 and _written(path, monkeypatch) == keeps
    if change in ("copy", "copy times"):
        _copy_over(path, backup, change == "copy times")
    elif change is not None:
        _edit_times_back(path, change)
    found = _reads(path, capsys, monkeypatch)
    for status, _out, err in found:
        assert (status, code is None) == (0, True) or (status == 3 and code in err)
    if change in ("copy", "copy times"):  # the state before the command: bob's hand as it was dealt
        json_show = found[VERBS.index(["show", "--format", "json"])][1]
        assert json.loads(json_show) == json.loads(_run(["campaign", "show", backup, "--format", "json"],
                                                        capsys, monkeypatch, cache=False)[1])


_KILLED = """
import os, sys
from interpreter.campaign import kept
from interpreter.cli import main

where, argv = sys.argv[1], sys.argv[2:]
if where == "before keeping":
    kept.keep_written = lambda store: os._exit(9)
else:
    write = kept._write

    def killed(*args):
        write(*args)
        os._exit(9)
    kept._write = killed
main(argv)
"""


@pytest.mark.parametrize("where", ["before keeping", "after keeping"])
def test_a_writer_killed_between_its_commit_and_keeping(tmp_path, capsys, monkeypatch, cache_dir, where) -> None:
    """Killed after its commit and before keeping (the commit still in the ``-wal``), or after
    keeping and before closing the file (an empty ``-wal`` and the ``-shm`` left): the reading
    gives the command's state, as the file itself does."""
    path = make_campaign(tmp_path, seed=2)
    dealt = json.loads(_run(["campaign", "show", path, "--format", "json"], capsys, monkeypatch, cache=False)[1])
    argv = ["campaign", "circulate", path, "bob", "--all", "--seed", "4"]
    env = {**os.environ, cachefile.DIR_ENV: str(cache_dir)}
    env.pop(cachefile.DISABLE_ENV, None)
    done = subprocess.run([sys.executable, "-c", _KILLED, where, *argv], env=env, capture_output=True)
    assert done.returncode == 9, done.stderr
    assert os.path.exists(f"{path}-wal") and (os.stat(f"{path}-wal").st_size > 0) == (where == "before keeping")
    assert _written(path, monkeypatch) == (where == "after keeping")
    found = _reads(path, capsys, monkeypatch)
    shown = json.loads(found[VERBS.index(["show", "--format", "json"])][1])
    assert shown["holders"]["bob"] != dealt["holders"]["bob"] and len(shown["holders"]["bob"]) == 3


def test_a_writer_whose_commit_another_followed_keeps_nothing(tmp_path, capsys, monkeypatch, cache_dir) -> None:
    """Two commands writing at once: the one that committed first keeps nothing (another commit
    came after its own), the other keeps its state, which is the file's."""
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    path = make_campaign(tmp_path, seed=2)
    first = Store.open(path)
    try:
        commands.sleep(first, "alice", 8, seed=1)
        with Store.open(path) as second:
            commands.advance(second, 30, seed=2)
            kept.keep_written(second)
            assert _written(path, monkeypatch)
            by_second = kept.version_of(path)
        kept.keep_written(first)  # its state is not the file's any more
        assert kept.version_of(path) == by_second
    finally:
        first.close()
    _reads(path, capsys, monkeypatch)


def test_a_writer_keeps_nothing_while_a_reader_holds_an_older_snapshot(
        tmp_path, capsys, monkeypatch, cache_dir) -> None:
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    path = make_campaign(tmp_path, seed=2)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM cards").fetchone()  # a snapshot before the command
        with Store.open(path) as store:
            commands.sleep(store, "alice", 8, seed=1)
            kept.keep_written(store)
        assert not _written(path, monkeypatch)
    finally:
        reader.close()
    _reads(path, capsys, monkeypatch)


def test_concurrent_writers_then_a_reading(tmp_path, capsys, monkeypatch, cache_dir) -> None:
    """Writing commands as processes at once, each keeping what it committed when it is sure:
    the reading gives every command's effect, as the file itself does."""
    path = make_campaign(tmp_path, seed=2)
    before = json.loads(_run(["campaign", "show", path, "--format", "json"], capsys, monkeypatch, cache=False)[1])
    env = {**os.environ, cachefile.DIR_ENV: str(cache_dir)}
    env.pop(cachefile.DISABLE_ENV, None)
    writers = [subprocess.Popen([sys.executable, "-m", "interpreter", "campaign", "advance", path,
                                 "--minutes", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
               for _ in range(4)]
    assert [w.wait(60) for w in writers] == [0] * 4, [w.stderr.read() for w in writers if w.stderr]
    for w in writers:
        if w.stderr:
            w.stderr.close()
    found = _reads(path, capsys, monkeypatch)
    shown = json.loads(found[VERBS.index(["show", "--format", "json"])][1])
    assert shown["clock_minutes"] == before["clock_minutes"] + 4


def test_a_copy_over_the_file_while_the_writer_keeps_is_not_taken_for_its_state(
        tmp_path, capsys, monkeypatch, cache_dir) -> None:
    """Another campaign copied over the file after the writer's commit, while it keeps its state
    (before it reads the file's version): its header is not the one the writer's connection
    wrote, so nothing is kept, and the reading gives the copied campaign."""
    path = make_campaign(tmp_path, seed=2)
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    other = make_campaign(other_folder, seed=9)
    real = kept.version_of
    copied = []

    def copy_then_version(where: str):
        if not copied:
            copied.append(shutil.copyfile(other, where))
        return real(where)

    monkeypatch.setattr(kept, "version_of", copy_then_version)
    done = _run(["campaign", "circulate", path, "bob", "--all", "--seed", "4"], capsys, monkeypatch, cache=True)
    monkeypatch.setattr(kept, "version_of", real)
    assert done[0] == 0 and copied and not _written(path, monkeypatch)
    found = _reads(path, capsys, monkeypatch)
    shown = found[VERBS.index(["show", "--format", "json"])][1]
    assert shown == _run(["campaign", "show", other, "--format", "json"], capsys, monkeypatch, cache=False)[1]
