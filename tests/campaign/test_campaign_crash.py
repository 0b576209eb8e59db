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
