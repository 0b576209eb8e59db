"""A ``-wal`` left by another campaign file is refused (MPR686, exit 3) before SQLite reads it,
and nothing is changed or deleted; a ``-wal`` of the same file (a command killed after its
commit) is still applied. Files made before the token (schema version 1) get one on opening."""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from campaign_support import CHARS, make_campaign  # noqa: E402
from test_crash_safety import AFTER_COMMIT, argv, journal, run_forked  # noqa: E402

from interpreter.campaign import store as store_module, wal  # noqa: E402
from interpreter.campaign.store import SCHEMA_VERSION, Store  # noqa: E402
from interpreter.cli import main  # noqa: E402
from rules_dsl.errors import EXIT_STATE, MprError  # noqa: E402

import yaml  # noqa: E402


def killed_after_commit(path: Path, command: str = "sleep", setup=None) -> None:
    """Run ``command`` on ``path`` and kill it right after its commit: its WAL stays beside."""
    status, _, err = run_forked(argv(command, path), kill_at=AFTER_COMMIT, setup=setup)
    assert status is None, err
    assert wal.read_commits(f"{path}-wal", verify=True).count >= 1


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Campaign A with the WAL of a killed command beside it, and another campaign B."""
    tmp = tmp_path_factory.mktemp("wal")
    a = Path(make_campaign(tmp, name="a.db", seed=1))
    b = Path(make_campaign(tmp, name="b.db", seed=2))
    killed_after_commit(a)
    return a, b


def files_of(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.is_file() and not p.name.endswith(".yaml")}


def copied_over(pair: tuple[Path, Path], folder: Path) -> Path:
    """B copied over A's path while A's WAL was still beside it."""
    a, b = pair
    target = folder / "campaign.db"
    shutil.copy(b, target)
    shutil.copy(f"{a}-wal", f"{target}-wal")
    return target


COMMANDS = [
    ["show", "{file}"], ["log", "{file}"], ["export", "{file}"], ["undo", "{file}"],
    ["sleep", "{file}", "alice", "--hours", "8", "--seed", "1"], ["dawn", "{file}", "--seed", "1"],
    ["init", "{file}", "--characters", "{chars}", "--force"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_wal_of_another_campaign_is_refused(command: list[str], pair: tuple[Path, Path],
                                               tmp_path: Path, capsys) -> None:
    path = copied_over(pair, tmp_path)
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    before = files_of(tmp_path)
    args = [a.replace("{file}", str(path)).replace("{chars}", str(chars)) for a in command]
    assert main(["--lang", "en", "campaign", *args]) == EXIT_STATE
    err = capsys.readouterr().err
    assert "MPR686" in err and f"{path}-wal" in err and f"{path}-shm" in err and "Move" in err
    assert files_of(tmp_path) == before  # nothing changed, nothing deleted


def test_the_refusal_speaks_japanese(pair: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    path = copied_over(pair, tmp_path)
    assert main(["--lang", "ja", "campaign", "show", str(path)]) == EXIT_STATE
    assert "別のキャンペーンファイル" in capsys.readouterr().err


def test_without_the_check_sqlite_would_mix_the_files(pair: tuple[Path, Path], tmp_path: Path,
                                                      monkeypatch) -> None:
    """What the check prevents: SQLite reads A's pages into B without a word."""
    path = copied_over(pair, tmp_path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        token = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    assert token == wal.file_token(str(pair[0]))[1] != wal.file_token(str(path))[1]


def test_the_same_files_wal_after_a_kill_is_applied(pair: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = pair
    path = tmp_path / "campaign.db"
    shutil.copy(a, path)
    shutil.copy(f"{a}-wal", f"{path}-wal")
    assert journal(path) == ["init", "sleep"]


def test_moving_the_wal_away_lets_the_campaign_open(pair: tuple[Path, Path], tmp_path: Path) -> None:
    path = copied_over(pair, tmp_path)
    os.rename(f"{path}-wal", tmp_path / "kept-wal")
    assert journal(path) == ["init"]


def test_a_torn_frame_after_the_commits_is_ignored_as_sqlite_does(pair: tuple[Path, Path],
                                                                  tmp_path: Path) -> None:
    """A last frame with the right salts, a foreign token and a wrong checksum (a write cut
    short): SQLite ignores it, so it does not make the log foreign."""
    a, b = pair
    path = tmp_path / "campaign.db"
    shutil.copy(a, path)
    log = Path(f"{a}-wal").read_bytes()
    page_size = int.from_bytes(log[8:12], "big")
    frame = bytearray(log[32:32 + 24 + page_size])
    frame[4:8] = (1).to_bytes(4, "big")  # a commit frame of page 1
    frame[24 + 60:24 + 64] = wal.file_token(str(b))[1].to_bytes(4, "big")
    Path(f"{path}-wal").write_bytes(log[:32 + len(log[32:]) // (24 + page_size) * (24 + page_size)]
                                    + bytes(frame))
    assert wal.read_commits(f"{path}-wal", verify=False).tokens[-1] != wal.file_token(str(path))[1]
    assert journal(path) == ["init", "sleep"]


def test_init_keeps_a_wal_with_changes_beside_a_missing_file(pair: tuple[Path, Path],
                                                             tmp_path: Path) -> None:
    a, _ = pair
    path = tmp_path / "new.db"
    shutil.copy(f"{a}-wal", f"{path}-wal")
    with pytest.raises(MprError) as caught:
        make_campaign(tmp_path, name="new.db")
    assert caught.value.code == "MPR686" and not path.exists() and Path(f"{path}-wal").exists()


@pytest.mark.parametrize("content", [b"", b"\x37\x7f\x06\x82" + bytes(28), b"junk" * 100])
def test_a_wal_without_commits_is_no_obstacle(content: bytes, pair: tuple[Path, Path],
                                              tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    shutil.copy(pair[1], path)
    Path(f"{path}-wal").write_bytes(content)
    assert journal(path) == ["init"]


def test_the_checksums_agree_with_sqlite(tmp_path: Path, monkeypatch) -> None:
    """Three commits held in the WAL by a reader: read with checksums, all three are found (the
    cache off: a command keeping its state for the reading after it folds the WAL into the file)."""
    monkeypatch.setenv("MPRULES_NO_CACHE", "1")
    path = Path(make_campaign(tmp_path))
    reader = sqlite3.connect(path)
    try:
        reader.execute("PRAGMA wal_autocheckpoint = 0")
        reader.execute("SELECT count(*) FROM cards").fetchall()
        for seed in ("1", "2", "3"):
            assert main(["campaign", "dawn", str(path), "--seed", seed]) == 0
        commits = wal.read_commits(f"{path}-wal", verify=True)
        assert commits.count == 3 and commits.belong_to(wal.file_token(str(path))[1])
    finally:
        reader.close()


def _as_version_1() -> None:
    """In the killed child: mprules as it was before the token (schema version 1)."""
    store_module.MIGRATIONS = store_module.MIGRATIONS[:1]
    store_module.SCHEMA_VERSION = 1
    Store._sign = lambda self: None


def test_a_file_from_before_the_token_gets_one(tmp_path: Path) -> None:
    """A version-1 file (no token), with the WAL of a command of that version killed after its
    commit, opens with that command applied, is migrated and gets a token."""
    path = Path(make_campaign(tmp_path))
    conn = sqlite3.connect(path)
    conn.executescript("PRAGMA user_version = 0; DELETE FROM schema_version WHERE version > 1;")
    conn.close()
    killed_after_commit(path, "dawn", setup=_as_version_1)
    assert wal.file_token(str(path)) == (True, 0)
    assert journal(path) == ["init", "dawn"]
    with Store.open(str(path)) as store:
        assert store.conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert wal.file_token(str(path))[1] != 0


def test_a_token_lost_from_a_new_file_is_damage(tmp_path: Path) -> None:
    path = Path(make_campaign(tmp_path))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.close()
    with pytest.raises(MprError) as caught:
        Store.open(str(path))
    assert caught.value.code == "MPR620"


def test_every_command_names_its_file_in_the_wal(tmp_path: Path, monkeypatch) -> None:
    """Each transaction writes the header page, so that each commit carries the token (the cache
    off, so that the commits stay in the WAL: see the test above)."""
    monkeypatch.setenv("MPRULES_NO_CACHE", "1")
    path = Path(make_campaign(tmp_path))
    reader = sqlite3.connect(path)
    try:
        reader.execute("SELECT count(*) FROM cards").fetchall()
        for command in (["sleep", str(path), "alice", "--hours", "1"], ["undo", str(path)],
                        ["circulate", str(path), "alice", "--all", "--seed", "2"]):
            assert main(["campaign", *command]) == 0
        commits = wal.read_commits(f"{path}-wal", verify=True)
        assert commits.count == 3 and commits.unnamed == 0
    finally:
        reader.close()


def test_changes_another_program_left_in_the_wal_are_not_applied_silently(tmp_path: Path) -> None:
    """A commit that does not carry the file's header page was not written by mprules for this
    file (another program, or a campaign of an mprules before tokens): refused the same way."""
    path = Path(make_campaign(tmp_path))
    reader = sqlite3.connect(path)
    try:
        reader.execute("SELECT count(*) FROM cards").fetchall()
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE campaign SET briefing = briefing + 1")
        writer.execute("COMMIT")
        writer.close()
        target = tmp_path / "copy.db"
        shutil.copy(path, target)
        shutil.copy(f"{path}-wal", f"{target}-wal")
    finally:
        reader.close()
    assert wal.read_commits(f"{target}-wal", verify=True).unnamed == 1
    with pytest.raises(MprError) as caught:
        Store.open(str(target))
    assert caught.value.code == "MPR686"
