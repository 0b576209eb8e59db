"""The journal-growth benchmark builds its campaign file in one process without syncing each
command's commit: the file is the one the commands give with every commit synced, byte for byte
(but the random token each new campaign gets in its header)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("commands_count, cards", [(12, 200), (9, 40)])
def test_the_quick_build_is_the_durable_file(tmp_path, monkeypatch, commands_count, cards) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_journal_growth as bench

    from interpreter.campaign import wal

    folder = tmp_path / "growth"  # the same place both times: the file keeps the ruleset's path
    built = {}
    for durable in (True, False):
        folder.mkdir()
        path, _ = bench.write(folder, commands_count, cards, durable=durable)
        data = Path(path).read_bytes()
        built[durable] = data[:wal.TOKEN_OFFSET] + data[wal.TOKEN_OFFSET + 4:]
        shutil.rmtree(folder)
    assert built[True] == built[False] and len(built[True]) > 4096
    sys.modules.pop("bench_journal_growth", None)
