"""The reading commands (show, log, export) print the same bytes and exit with the same status
whether they read the file itself (the cache off: the way they read before the state was kept) or
the state kept for that version of the file (``interpreter.campaign.kept``), for a table of
campaign states, damaged ones included (refused with their code each time, nothing kept); and a
file changed in any way after its state was kept is read and checked again."""
from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

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
