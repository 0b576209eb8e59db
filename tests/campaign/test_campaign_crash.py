"""A command killed between its writes and its commit leaves the campaign at the previous state;
two processes writing the same campaign: the second waits, or fails cleanly, and nothing is lost."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from campaign_support import dump, make_campaign
from interpreter.campaign import commands, files as files_module
from interpreter.campaign.store import Store
from rules_dsl.errors import MprError

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from interpreter.campaign import commands, store
commit = store.Store._commit
def paused(self):
    print("written", flush=True)  # every change of the command is written, not yet committed
    sys.stdin.readline()
    commit(self)
store.Store._commit = paused
with store.Store.open({path!r}) as campaign:
    commands.sleep(campaign, "alice", 8, seed=1)
print("committed", flush=True)
"""


def child(path: str) -> subprocess.Popen:
    code = CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"), path=path)
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "written"
    return process


def integrity(path: str) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def journal(path: str) -> list[str]:
    with Store.open(path) as campaign:
        return [e.command for e in campaign.entries()]


def test_a_command_killed_before_its_commit_changes_nothing(tmp_path):
    path = make_campaign(tmp_path)
    before = dump(path)
    process = child(path)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    assert integrity(path) == "ok"
    assert dump(path) == before and journal(path) == ["init"]
    with Store.open(path) as campaign:  # the lock died with the process
        commands.sleep(campaign, "alice", 8, seed=1)
    assert journal(path) == ["init", "sleep"]


def test_a_second_writer_waits_for_the_first(tmp_path):
    path = make_campaign(tmp_path)
    process = child(path)
    results: list = []

    def second() -> None:
        with Store.open(path) as campaign:
            results.append(commands.advance(campaign, 60, seed=2))

    thread = threading.Thread(target=second)
    thread.start()
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "committed"
    process.wait()
    thread.join()
    assert results and journal(path) == ["init", "sleep", "advance"]
    assert dump(path)["clock_minutes"] == 360 + 60 and integrity(path) == "ok"


def test_a_second_writer_that_cannot_wait_fails_cleanly(tmp_path, monkeypatch):
    path = make_campaign(tmp_path)
    process = child(path)
    monkeypatch.setattr(files_module, "CAMPAIGN_BUSY_TIMEOUT_SECONDS", 0.1)
    with pytest.raises(MprError) as error:
        with Store.open(path) as campaign:
            commands.advance(campaign, 60, seed=2)
    assert error.value.code == "MPR625" and error.value.exit_code == 3
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "committed"
    process.wait()
    assert journal(path) == ["init", "sleep"] and integrity(path) == "ok"


# -- a stray rollback journal, the size limit, an export onto the campaign itself -------------------

CRASHED_TRANSACTION = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = DELETE")
conn.execute("PRAGMA cache_size = 1")  # the changed pages go to the file before the commit
conn.execute("BEGIN")
conn.execute("DELETE FROM cards")
conn.execute("UPDATE characters SET data = '{}'")
conn.execute("INSERT INTO journal (command, inputs, choices, result) VALUES ('x', '{}', '[]', '{}')")
os._exit(0)  # killed before COMMIT: the rollback journal stays, hot
"""


def test_a_stray_rollback_journal_of_an_old_copy_is_never_played_back(tmp_path):
    """Another program crashed in a transaction on an old copy of the campaign; its -journal is
    then put beside the campaign (the copy moved back, a sync tool): SQLite would roll those
    pages into the campaign. It is refused, and kept, until it is moved away."""
    path = make_campaign(tmp_path)
    copy = tmp_path / "old.db"
    copy.write_bytes(Path(path).read_bytes())
    subprocess.run([sys.executable, "-c", CRASHED_TRANSACTION, str(copy)], check=True)
    stray = Path(f"{copy}-journal")
    assert stray.stat().st_size > 0
    with Store.open(path) as campaign:
        commands.sleep(campaign, "alice", 8, seed=3)
    before, data = dump(path), Path(path).read_bytes()
    journal_file = Path(f"{path}-journal")
    stray.rename(journal_file)
    for command in (lambda c: commands.sleep(c, "bob", 8, seed=4), lambda c: c.load()):
        with pytest.raises(MprError) as error:
            with Store.open(path) as campaign:
                command(campaign)
        assert error.value.code == "MPR688" and error.value.exit_code == 3
    assert journal_file.exists() and Path(path).read_bytes() == data  # nothing changed or deleted
    journal_file.rename(tmp_path / "moved-away-journal")
    assert integrity(path) == "ok" and dump(path) == before
    assert journal(path) == ["init", "sleep"]


def test_a_campaign_at_its_size_limit_refuses_growth_and_stays_whole(tmp_path, monkeypatch):
    path = make_campaign(tmp_path)
    monkeypatch.setattr(files_module, "MAX_CAMPAIGN_FILE_BYTES", Path(path).stat().st_size)
    refused = 0
    for n in range(40):  # until a command needs a page past the limit
        try:
            with Store.open(path) as campaign:
                commands.advance(campaign, 1, seed=n)
        except MprError as error:
            assert error.code == "MPR689" and error.exit_code == 3
            refused += 1
            break
    assert refused == 1 and integrity(path) == "ok"
    assert Path(path).stat().st_size <= files_module.MAX_CAMPAIGN_FILE_BYTES
    with Store.open(path, readonly=True) as campaign:
        assert campaign.check()["ok"]
    monkeypatch.undo()  # room again: the same command is saved
    with Store.open(path) as campaign:
        commands.advance(campaign, 1, seed=99)


def test_an_export_onto_the_campaign_itself_is_refused(tmp_path, capsys):
    from interpreter.cli import main

    path = make_campaign(tmp_path)
    before, data = dump(path), Path(path).read_bytes()
    (tmp_path / "same.db").symlink_to(path)
    for target in (path, str(tmp_path / "same.db"), f"{tmp_path}/./c.db"):
        assert main(["campaign", "export", path, "--output", target]) == 3
        assert "MPR070" in capsys.readouterr().err
    assert Path(path).read_bytes() == data and integrity(path) == "ok" and dump(path) == before
