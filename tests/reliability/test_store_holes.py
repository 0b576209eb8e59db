"""The campaign store's last holes (issue 25 item 2, issue 26 item 6): a stray rollback journal,
journal entries that keep what changed (and the migration of files that kept whole states),
undo checked against the state it was written for, temporaries of killed writers, text that is
not UTF-8 in any column, a full disk, output paths that are files the command reads, and the
full integrity check on demand."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from campaign_support import as_version_2, make_campaign  # noqa: E402
from interpreter.campaign import commands, files  # noqa: E402
from interpreter.campaign.store import SCHEMA_VERSION, Store  # noqa: E402
from interpreter.cli import main  # noqa: E402
from interpreter.documents.resources import bundled_ruleset  # noqa: E402

HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7") + b"\0\0\0\1" + os.urandom(16) + b"\0" * 4068


def read(path: str) -> dict:
    with Store.open(path, readonly=True) as store:
        return store.load().dump()


def journal(path: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT seq, command, undone_by FROM journal ORDER BY seq").fetchall()
    finally:
        conn.close()


def befores(path: str) -> list[dict]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [json.loads(b) for (b,) in conn.execute(
            "SELECT before FROM journal WHERE before IS NOT NULL ORDER BY seq")]
    finally:
        conn.close()


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- a stray rollback journal ------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["campaign", "show", "{c}"], ["campaign", "log", "{c}"], ["campaign", "export", "{c}"],
    ["campaign", "sleep", "{c}", "alice", "--hours", "8"], ["campaign", "undo", "{c}"],
    ["campaign", "check", "{c}"],
    ["campaign", "init", "{c}", "--characters", "{chars}", "--force"],
])
def test_a_hot_rollback_journal_beside_the_file_is_refused_and_kept(argv, tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    Path(f"{path}-journal").write_bytes(HOT_JOURNAL)
    data = Path(path).read_bytes()
    args = [a.format(c=path, chars=tmp_path / "chars_c.db.yaml") for a in argv]
    status, out, err = cli(capsys, *args)
    assert status == 3 and err.split()[1] == "MPR688" and "-journal" in err, err
    assert Path(f"{path}-journal").read_bytes() == HOT_JOURNAL  # nothing deleted
    assert Path(path).read_bytes() == data  # nothing changed


@pytest.mark.parametrize("content", [b"", b"\0" * 4096], ids=["empty", "zeroed-header"])
def test_a_journal_sqlite_would_not_play_back_is_no_reason_to_refuse(content, tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    Path(f"{path}-journal").write_bytes(content)
    assert cli(capsys, "campaign", "sleep", path, "alice", "--hours", "8")[0] == 0
    assert cli(capsys, "campaign", "show", path)[0] == 0


# -- journal entries keep what changed -----------------------------------------------------------------

def big_deck(tmp_path: Path, cards: int) -> str:
    ranks = ["A", "10", *(str(n) for n in range(11, 9 + cards // 4))]  # the roster's SA, H10, JK1 too
    return make_campaign(tmp_path, param_overrides={"cards.deck": {"ranks": ranks, "jokers": ["JK1"]}})


def test_entries_keep_what_changed_not_the_pin_nor_the_whole_deck(tmp_path) -> None:
    path = big_deck(tmp_path, 4000)
    start = os.stat(path).st_size
    with Store.open(path) as store:
        for n in range(30):
            if n % 3 == 0:
                commands.sleep(store, "alice", 8, seed=n)
            elif n % 3 == 1:
                commands.advance(store, 60, seed=n)
            else:
                commands.circulate(store, "bob", take_all=True, seed=n)
    kept = befores(path)
    assert len(kept) == 30 and all(set(b) == {"@patch", "@base"} for b in kept)
    assert all("pin" not in b["@patch"]["d"] for b in kept)  # the pin is never repeated
    assert max(len(json.dumps(b)) for b in kept) < 2_000  # the cards that moved, not 4,000 names
    assert (os.stat(path).st_size - start) / 30 < 4_000


def test_undo_walks_back_every_state(tmp_path) -> None:
    path = make_campaign(tmp_path)
    states = [read(path)]
    with Store.open(path) as store:
        for n in range(6):
            commands.sleep(store, "alice", 8, seed=n) if n % 2 else commands.advance(store, 24 * 60, seed=n)
            states.append(read(path))
        commands.undo(store)  # an undone command in the middle of the history
        commands.circulate(store, "alice", take_all=True, seed=9)
        states[-1] = read(path)
        for expected in reversed(states[:-1]):
            commands.undo(store)
            assert store.load().dump() == expected


def test_a_file_of_version_2_is_read_migrated_and_undone_as_before(tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    states = [read(path)]
    with Store.open(path) as store:
        for n in range(4):
            commands.advance(store, 600, seed=n)
            states.append(read(path))
        commands.undo(store)
        states.pop()
        commands.sleep(store, "alice", 8, seed=7)
        states.append(read(path))
    as_version_2(path)
    old = befores(path)
    assert all("pin" in b for b in old)  # whole states, as version 2 kept them
    assert cli(capsys, "campaign", "log", path)[0] == 0  # read, and migrated (as every command does)
    with Store.open(path) as store:
        version = store.conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        assert version == SCHEMA_VERSION == 3
        assert all(set(b) == {"@patch", "@base"} for b in befores(path))
        assert sum(len(json.dumps(b)) for b in befores(path)) < sum(len(json.dumps(b)) for b in old) / 10
        for expected in reversed(states[:-1]):
            commands.undo(store)
            assert store.load().dump() == expected


def test_undo_refuses_a_patch_written_for_another_state(tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    assert cli(capsys, "campaign", "advance", path, "--minutes", "60")[0] == 0
    conn = sqlite3.connect(path)
    conn.execute("UPDATE campaign SET clock_minutes = clock_minutes + 1")  # changed behind mprules' back
    conn.commit()
    conn.close()
    before = read(path)
    status, _, err = cli(capsys, "campaign", "undo", path)
    assert status == 3 and err.split()[1] == "MPR687", err
    assert read(path) == before


# -- temporaries of killed writers ---------------------------------------------------------------------

def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


@pytest.mark.parametrize("argv", [["campaign", "sleep", "{c}", "alice", "--hours", "8"],
                                  ["campaign", "init", "{c}", "--characters", "{chars}", "--force"]])
def test_the_temporaries_of_killed_writers_are_cleaned_by_the_next_command(argv, tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    dead = [f".c.db.{dead_pid()}.0badc0de.tmp{s}" for s in ("", "-wal", "-shm", "-journal")]
    alive = f".c.db.{os.getppid()}.0badc0de.tmp"  # a process that is running
    other = ".c.db.notes.tmp"  # not a temporary of a campaign
    for name in (*dead, alive, other):
        (tmp_path / name).write_bytes(b"x")
    args = [a.format(c=path, chars=tmp_path / "chars_c.db.yaml") for a in argv]
    assert cli(capsys, *args)[0] == 0
    left = {p.name for p in tmp_path.iterdir()}
    assert not left & set(dead) and {alive, other} <= left


# -- text that is not UTF-8 ----------------------------------------------------------------------------

BAD = "CAST(X'7b22ff227d' AS TEXT)"


@pytest.mark.parametrize("table, column, where", [
    ("journal", "inputs", "seq = 1"), ("journal", "result", "seq = 1"), ("journal", "command", "seq = 1"),
    ("characters", "data", "id = 'bob'"), ("characters", "id", "id = 'bob'"), ("items", "data", "1"),
    ("cards", "card", "rowid = 3"), ("ruleset", "rules", "1"), ("ruleset", "path", "1"),
    ("campaign", "briefing_tier", "1"),
])
@pytest.mark.parametrize("verb", ["log", "show", "undo"])
def test_text_that_is_not_utf8_is_a_damaged_file_with_its_row(table, column, where, verb, tmp_path,
                                                                capsys) -> None:
    path = make_campaign(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute(f"UPDATE {table} SET {column} = {BAD} WHERE {where}")
    row = conn.execute(f"SELECT rowid FROM {table} WHERE CAST({column} AS BLOB) = X'7b22ff227d'").fetchone()[0]
    conn.commit()
    conn.close()
    data = Path(path).read_bytes()
    status, out, err = cli(capsys, "campaign", verb, path)
    if verb == "log" or table != "journal":
        assert status == 3 and err.split()[1] == "MPR620", err
        assert f"{table} row {row}, column {column} is not UTF-8" in err, err
    else:  # show and undo read no journal entry written by a command
        assert status in (0, 1), err
    if status:
        assert Path(path).read_bytes() == data


# -- a full disk -----------------------------------------------------------------------------------------

def test_what_a_full_disk_left_beside_the_file_does_not_stop_reading(tmp_path, capsys) -> None:
    """A command that met a full disk may leave an empty -wal and a -shm it could not finish:
    the file reads all the same (nothing committed is in an empty log)."""
    path = make_campaign(tmp_path)
    before = read(path)
    Path(f"{path}-wal").write_bytes(b"")
    Path(f"{path}-shm").write_bytes(b"\0\0\0")
    for verb in ("show", "log", "export", "check"):
        assert cli(capsys, "campaign", verb, path)[0] == 0, verb
    assert read(path) == before


def test_a_full_disk_on_opening_is_mpr629_not_a_damaged_file(tmp_path, capsys, monkeypatch) -> None:
    """SQLite says only "disk I/O error" when it cannot make its -shm on a full disk; the free
    space of the file system tells it apart from a damaged file."""
    path = make_campaign(tmp_path)
    before = read(path)
    real = files.connect

    def failing(where: str, mode: str):
        if mode == "rw":
            raise sqlite3.OperationalError("disk I/O error")
        return real(where, mode)

    monkeypatch.setattr("interpreter.campaign.store._connect", failing)
    monkeypatch.setattr(files, "disk_full", lambda path: True)
    status, _, err = cli(capsys, "campaign", "sleep", path, "alice", "--hours", "8")
    assert status == 3 and err.split()[1] == "MPR629" and "disk is full" in err, err
    monkeypatch.setattr(files, "disk_full", lambda path: False)
    status, _, err = cli(capsys, "campaign", "sleep", path, "alice", "--hours", "8")
    assert status == 3 and err.split()[1] == "MPR626", err  # an I/O error with room on the disk
    assert read(path) == before


# -- output paths that are files the command reads -------------------------------------------------------

def _ruleset_copy(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), target)
    return target


@pytest.mark.parametrize("argv, victim", [
    (["campaign", "export", "{c}", "--output", "{c}"], "{c}"),
    (["campaign", "export", "{c}", "--output", "{tmp}/./c.db"], "{c}"),
    (["campaign", "export", "{c}", "--output", "{tmp}/link.db"], "{c}"),
    (["campaign", "export", "{c}", "--output", "{c}-wal"], None),
    (["doc", "{rules}", "-o", "{rules}/ruleset.yaml"], "{rules}/ruleset.yaml"),
    (["doc", "{rules}", "-o", "{rules}/cards.yaml"], "{rules}/cards.yaml"),
    (["export", "bcdice", "cohabitation.leisure.city", "--ruleset", "{rules}", "-o", "{rules}/ruleset.yaml"],
     "{rules}/ruleset.yaml"),
    (["prob", "cards.deck", "--ruleset", "{rules}", "--svg", "{rules}/cards.yaml"], "{rules}/cards.yaml"),
    (["prob", "x + 1", "--input", "{tmp}/in.yaml", "--svg", "{tmp}/in.yaml"], "{tmp}/in.yaml"),
])
def test_no_output_is_written_onto_a_file_the_command_reads(argv, victim, tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    rules = _ruleset_copy(tmp_path)
    (tmp_path / "link.db").symlink_to(path)
    (tmp_path / "in.yaml").write_text("x: 1\n", encoding="utf-8")

    def fill(text: str) -> str:
        return text.format(c=path, tmp=tmp_path, rules=rules)

    target = Path(fill(victim)) if victim else None
    data = target.read_bytes() if target else None
    status, out, err = cli(capsys, *map(fill, argv))
    assert status == 3 and "MPR070" in err, err
    if target is not None:
        assert target.read_bytes() == data
    assert read(path)["clock_minutes"] >= 0  # the campaign still opens


# -- the full check on demand --------------------------------------------------------------------------

def test_campaign_check_reads_every_page_and_entry(tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    assert cli(capsys, "campaign", "advance", path, "--minutes", "60")[0] == 0
    status, out, _ = cli(capsys, "campaign", "check", path, "--format", "json")
    report = json.loads(out)
    assert status == 0 and report["ok"] is True and report["entries"] == 2 and report["bytes"] > 0
    status, out, _ = cli(capsys, "--lang", "ja", "campaign", "check", path)
    assert status == 0 and "問題ありません" in out
    conn = sqlite3.connect(path)  # an entry whose result is not JSON: found by check, not by show
    conn.execute("UPDATE journal SET result = 'not json' WHERE seq = 1")
    conn.commit()
    conn.close()
    assert cli(capsys, "campaign", "show", path)[0] == 0
    status, _, err = cli(capsys, "campaign", "check", path)
    assert status == 3 and err.split()[1] == "MPR620" and "journal entry #1" in err, err


def test_campaign_check_finds_a_damaged_page(tmp_path, capsys) -> None:
    path = make_campaign(tmp_path)
    conn = sqlite3.connect(path)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    data = bytearray(Path(path).read_bytes())
    for n in range(2, pages):  # every page after the schema: their headers garbled
        data[n * page - page + 8: n * page - page + 12] = b"\xff\xff\xff\xff"
    Path(path).write_bytes(bytes(data))
    status, _, err = cli(capsys, "campaign", "check", path)
    assert status == 3 and err.split()[1] == "MPR620", err
