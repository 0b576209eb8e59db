"""Benchmark: how a campaign file grows with its journal, and how fast the verbs read it. A
campaign whose deck has 10,000 cards (the deck's limit) takes N commands (sleep, advance, circulate
and undo in turn, in one process through the library, as the commands would in N processes); then
every verb that reads the file runs on it as a whole process of the installed ``mprules`` (the one
beside this Python, else on ``PATH``; ``--mprules`` names it), each paired with ``python -c pass``
in alternation, as the median of ``--runs`` runs after one that warms the caches. Prints the
file's size, the bytes per journal entry, each verb's median and its ratio to ``python -c pass``,
and a final JSON line.

The verbs are measured at least ``RACY_SECONDS`` after the file was last written: a campaign file
changed closer than that to a reading is read and checked whole again (its kept state is not
trusted), as right after a command at the table. ``--no-cache`` measures every verb that way.

Writing 10,000 commands through the library takes about 14 minutes on a quiet machine (the whole
10,000-card deck is saved by each). ``--keep DIR`` keeps the file made (DIR/c.db, with its
characters and the copied ruleset it is pinned to), and ``--file DIR/c.db`` measures the reading
verbs on such a file again without writing it.

Goal (issue 26 item 6): 10,000 entries in at most 15 MB; ``show`` and ``log --last N`` at most 3x
``python -c pass`` (warm caches); ``log``, ``export`` and ``check`` as fast as what they read and
print allows.

Usage: python3 benchmarks/bench_journal_growth.py [--commands 10000] [--cards 10000] [--runs 7]
                                                  [--keep DIR | --file DIR/c.db] [--mprules PATH]
                                                  [--no-cache]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _runner import CHARACTERS, installed_env, mprules_command, paired  # noqa: E402
from rules_dsl.cachefile import RACY_SECONDS  # noqa: E402


def write(folder: Path, commands_count: int, cards: int) -> tuple[str, float]:
    """A campaign file of ``cards`` cards after ``commands_count`` commands; (its path, seconds)."""
    from interpreter.campaign import commands
    from interpreter.campaign.store import Store
    from interpreter.documents.resources import bundled_ruleset

    chars = folder / "chars.yaml"
    chars.write_text(CHARACTERS, encoding="utf-8")
    path = str(folder / "c.db")
    ranks = [str(n) for n in range(1, cards // 4 + 1)]
    rules = folder / "rules"  # a copy: edits of the checkout meanwhile are no change of the pinned ruleset
    shutil.copytree(bundled_ruleset(), rules)
    commands.init(path, str(chars), ruleset=str(rules), seed=1,
                  param_overrides={"cards.deck": {"ranks": ranks, "jokers": []}})
    start = time.perf_counter()
    with Store.open(path) as store:
        for n in range(commands_count):
            step = n % 4
            if step == 0:
                commands.sleep(store, "rin", 8, seed=n)
            elif step == 1:
                commands.advance(store, 60, seed=n)
            elif step == 2:
                commands.circulate(store, "kai", take_all=True, seed=n)
            else:
                commands.undo(store)
    return path, time.perf_counter() - start


def entries_of(path: str) -> int:
    # start-up: a benchmark; the file is only counted
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # leaves no -wal or -shm
    try:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="make the campaign in DIR (kept)")
    parser.add_argument("--file", metavar="CAMPAIGN", help="measure this campaign file; write none")
    parser.add_argument("--mprules", help="the installed mprules command to measure")
    parser.add_argument("--no-cache", action="store_true", help="measure with every cache off")
    args = parser.parse_args()
    mprules = [args.mprules] if args.mprules else mprules_command()
    if args.file:
        path = os.path.abspath(args.file)
        print(f"{path}: {entries_of(path)} journal entries (not written by this run)")
    else:
        folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mprules-growth-"))
        folder.mkdir(parents=True, exist_ok=True)
        path, written = write(folder, args.commands, args.cards)
        print(f"{args.commands} commands, {args.cards}-card deck, written in {written:.1f} s: {path}")
    size = os.stat(path).st_size
    entries = entries_of(path)
    print(f"{entries} journal entries: {size / 1e6:.1f} MB ({size / max(entries, 1):.0f} bytes per entry)")
    env = dict(installed_env(), MPRULES_CACHE_DIR=tempfile.mkdtemp(prefix="mprules-growth-cache-"))
    if args.no_cache:
        env["MPRULES_NO_CACHE"] = "1"
    changed = os.stat(path).st_mtime
    time.sleep(max(0.0, changed + RACY_SECONDS + 0.1 - time.time()))  # not read right after a write
    print(f"mprules measured: {' '.join(mprules)}; cache {'off' if args.no_cache else 'warm'}; "
          f"median of {args.runs} runs")
    verbs: dict[str, dict[str, float | int]] = {}
    for verb in (["show"], ["log", "--last", "5"], ["log"], ["export"], ["check"]):
        argv = mprules + ["campaign", verb[0], path, *verb[1:]]
        exit_code = subprocess.run(argv, env=env, capture_output=True).returncode
        ours, base = paired(argv, args.runs, env=env)
        name = " ".join(verb)
        verbs[name] = {"exit": exit_code, "seconds": round(ours, 4), "vs_python_pass": round(ours / base, 2)}
        print(f"  {name:14} exit {exit_code}  {ours * 1000:7.1f} ms  {ours / base:5.2f}x "
              f"(python -c pass {base * 1000:.1f} ms)")
    with tempfile.TemporaryDirectory() as tmp:  # undo writes: on a copy, once
        copy = os.path.join(tmp, "c.db")
        shutil.copyfile(path, copy)
        begin = time.perf_counter()
        done = subprocess.run(mprules + ["campaign", "undo", copy], env=env, capture_output=True)
        undo = time.perf_counter() - begin
    verbs["undo"] = {"exit": done.returncode, "seconds": round(undo, 4)}
    print(f"  {'undo':14} exit {done.returncode}  {undo * 1000:7.1f} ms  (once, on a copy)")
    print(json.dumps({"entries": entries, "bytes": size, "bytes_per_entry": round(size / max(entries, 1)),
                      "cache": not args.no_cache, "verbs": verbs, "goal": 3.0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
