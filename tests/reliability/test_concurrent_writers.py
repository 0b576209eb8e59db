"""Twenty processes write one campaign at the same moment (``mprules campaign advance``, each a
whole process started together): every one is saved or refused cleanly as busy (MPR625, exit 3,
nothing changed), none is lost or applied twice, and the file stays whole. The ruleset is loaded
before the write lock is taken, so the lock is held for milliseconds and no writer should give up.

``python3 tests/reliability/test_concurrent_writers.py [WRITERS] [ROUNDS]`` prints the figures of each round:
saved, busy, and the wall time from the start of the first writer to the end of the last."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

WRITERS = 20


def one_round(folder: Path, writers: int) -> dict[str, float]:
    """``writers`` processes advancing the clock of one new campaign by one minute each, at once."""
    from campaign_support import make_campaign
    from interpreter.campaign.store import Store
    from interpreter.solvers.cards import invariant_problems

    path = make_campaign(folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "interpreter", "campaign", "show", path], env=env,
                   check=True, capture_output=True)  # the ruleset cache is warm, as at a table
    with Store.open(path) as store:
        clock = store.load().clock_minutes
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "interpreter", "campaign", "advance", path,
                               "--minutes", "1"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(writers)]
    outcomes = []
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        outcomes.append((proc.returncode, err))
    wall = time.perf_counter() - start
    saved = sum(code == 0 for code, _ in outcomes)
    busy = sum(code == 3 and "MPR625" in err for code, err in outcomes)
    assert saved + busy == writers, [o for o in outcomes if o[0] != 0]
    with Store.open(path) as store:
        state = store.load()
        entries = [e.command for e in store.entries()]
    conn = sqlite3.connect(path)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    assert integrity == "ok"
    assert state.clock_minutes == clock + saved and entries.count("advance") == saved
    assert invariant_problems(state.cards, state.deck_spec()) == ([], [])
    return {"writers": writers, "saved": saved, "busy": busy, "wall_s": round(wall, 2)}


def test_twenty_concurrent_writers_are_all_saved(tmp_path: Path) -> None:
    figures = one_round(tmp_path, WRITERS)
    assert figures["busy"] == 0, figures


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else WRITERS
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            print(one_round(Path(tmp), count), flush=True)
