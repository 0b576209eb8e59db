"""Benchmark: how a campaign file grows with its journal. A campaign whose deck has 10,000 cards
(the deck's limit) takes N commands (sleep, advance, circulate and undo in turn, in one process
through the library, as the commands would in N processes); then every verb that reads the file
runs on it as a whole process. Prints the file's size, the bytes per journal entry, and each
reading verb's time and exit status, and a final JSON line.

Goal (issue 26 item 6, issue 25): 10,000 entries in at most 15 MB; every verb reads the file.

Usage: python3 benchmarks/bench_journal_growth.py [--commands 10000] [--cards 10000]
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

from interpreter.campaign import commands  # noqa: E402
from interpreter.campaign.store import Store  # noqa: E402
from interpreter.documents.resources import bundled_ruleset  # noqa: E402
from _runner import CHARACTERS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=10_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mprules-growth-"))
    chars = folder / "chars.yaml"
    chars.write_text(CHARACTERS, encoding="utf-8")
    path = str(folder / "c.db")
    ranks = [str(n) for n in range(1, args.cards // 4 + 1)]
    rules = folder / "rules"  # a copy: edits of the checkout meanwhile are no change of the pinned ruleset
    shutil.copytree(bundled_ruleset(), rules)
    commands.init(path, str(chars), ruleset=str(rules), seed=1,
                  param_overrides={"cards.deck": {"ranks": ranks, "jokers": []}})
    start = time.perf_counter()
    with Store.open(path) as store:
        for n in range(args.commands):
            step = n % 4
            if step == 0:
                commands.sleep(store, "rin", 8, seed=n)
            elif step == 1:
                commands.advance(store, 60, seed=n)
            elif step == 2:
                commands.circulate(store, "kai", take_all=True, seed=n)
            else:
                commands.undo(store)
    written = time.perf_counter() - start
    size = os.stat(path).st_size
    print(f"{args.commands} commands, {args.cards}-card deck: {size / 1e6:.1f} MB "
          f"({size / max(args.commands, 1):.0f} bytes per entry), written in {written:.1f} s")
    verbs = {}
    for verb in (["show"], ["log"], ["log", "--last", "5"], ["export"], ["check"], ["undo"]):
        begin = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "interpreter", "campaign", verb[0], path, *verb[1:]],
                              cwd=ROOT, capture_output=True, text=True)
        verbs[" ".join(verb)] = {"exit": done.returncode, "seconds": round(time.perf_counter() - begin, 3)}
        print(f"  {' '.join(verb):14} exit {done.returncode}  {verbs[' '.join(verb)]['seconds']:.3f} s"
              + (f"  {done.stderr.strip()[:200]}" if done.returncode else ""))
    print(json.dumps({"commands": args.commands, "cards": args.cards, "bytes": size,
                      "bytes_per_entry": round(size / max(args.commands, 1)), "verbs": verbs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
