"""Benchmark: how a campaign file grows with its journal, and how fast the verbs read it. A
campaign whose deck has 10,000 cards (the deck's limit) takes N commands (sleep, advance, circulate
and undo in turn, in one process through the library, as the commands would in N processes); then
every verb that reads the file runs on it as a whole process of the installed ``mprules`` (the one
beside this Python, else on ``PATH``; ``--mprules`` names it), each paired with ``python -c pass``
in alternation, as the median of ``--runs`` runs after one that warms the caches. Prints the
file's size, the bytes per journal entry, each verb's median and its ratio to ``python -c pass``,
and a final JSON line.

The verbs are measured at least ``RACY_SECONDS`` after the file was last written (a reading
command's own kept state is trusted only then), and ``show``, ``log --last 5`` and ``log`` again
right after a writing command (``circulate``, on a copy of the file), as at the table: the writing
command keeps the state it committed (``kept.keep_written``). ``--no-cache`` measures every verb
with no kept state.

Writing 10,000 commands through the library takes about 9 minutes on a quiet machine (the whole
10,000-card deck is saved by each; SQLite does not sync each commit, which gives the same file:
``--durable`` syncs each, about 14 minutes). ``--keep DIR`` keeps the file made (DIR/c.db, with its
characters and the copied ruleset it is pinned to), and ``--file DIR/c.db`` measures the reading
verbs on such a file again without writing it.

Goal (issue 26 item 6): 10,000 entries in at most 15 MB; ``show`` and ``log --last N`` at most 3x
``python -c pass`` (warm caches); ``log``, ``export`` and ``check`` as fast as what they read and
print allows.

Usage: python3 benchmarks/bench_journal_growth.py [--commands 10000] [--cards 10000] [--runs 7]
                                                  [--keep DIR | --file DIR/c.db] [--mprules PATH]
                                                  [--no-cache] [--durable]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _runner import BASELINE, CHARACTERS, installed_env, mprules_command, paired, run_once  # noqa: E402
from rules_dsl.cachefile import RACY_SECONDS  # noqa: E402


def write(folder: Path, commands_count: int, cards: int, durable: bool = False) -> tuple[str, float]:
    """A campaign file of ``cards`` cards after ``commands_count`` commands; (its path, seconds).
    The same file, byte for byte (but the random token in its header), as the commands give one
    by one; without ``durable``, SQLite does not wait for the disk at each command's commit
    (``synchronous = OFF``: what each command writes is the same, only not synced one by one;
    the file is synced once at the end)."""
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
        if not durable:
            store.conn.execute("PRAGMA synchronous = OFF")
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
    os.sync()
    return path, time.perf_counter() - start


READ_RIGHT_AFTER = (["show"], ["log", "--last", "5"], ["log"])


def right_after_a_write(mprules: list[str], path: str, env: dict[str, str],
                        runs: int) -> dict[str, dict[str, float | int]]:
    """Each of ``READ_RIGHT_AFTER`` run at once after a writing command (``circulate`` of a
    holder's every card, on a copy of the file), as at the table: its median time and its ratio
    to ``python -c pass`` run after it, the first of ``runs + 1`` pairs warming the caches."""
    found: dict[str, dict[str, float | int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "c.db")
        shutil.copyfile(path, copy)
        write = mprules + ["campaign", "circulate", copy, "kai", "--all"]
        for verb in READ_RIGHT_AFTER:
            argv = mprules + ["campaign", verb[0], copy, *verb[1:]]
            subprocess.run(write, env=env, capture_output=True, check=True)
            exit_code = subprocess.run(argv, env=env, capture_output=True).returncode
            ours, base = [], []
            for _ in range(runs + 1):
                subprocess.run(write, env=env, capture_output=True, check=True)
                ours.append(run_once(argv, env=env))
                base.append(run_once(BASELINE, env=env))
            mine, theirs = statistics.median(ours[1:]), statistics.median(base[1:])
            found[" ".join(verb)] = {"exit": exit_code, "seconds": round(mine, 4),
                                     "vs_python_pass": round(mine / theirs, 2)}
    return found


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
    parser.add_argument("--durable", action="store_true",
                        help="write the file with SQLite syncing each command's commit (slower, the same file)")
    args = parser.parse_args()
    mprules = [args.mprules] if args.mprules else mprules_command()
    if args.file:
        path = os.path.abspath(args.file)
        print(f"{path}: {entries_of(path)} journal entries (not written by this run)")
    else:
        folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mprules-growth-"))
        folder.mkdir(parents=True, exist_ok=True)
        path, written = write(folder, args.commands, args.cards, durable=args.durable)
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
    after = right_after_a_write(mprules, path, env, args.runs)
    for name, found in after.items():
        verbs[f"{name} (right after a write)"] = found
        print(f"  {name:14} exit {found['exit']}  {found['seconds'] * 1000:7.1f} ms  {found['vs_python_pass']:5.2f}x "
              f"right after `campaign circulate` (on a copy)")
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
