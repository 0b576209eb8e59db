"""A campaign made before campaign files kept the manifest's ``campaign:`` wiring (the pin holds
none) runs with the wiring of its pinned ruleset's manifest instead of refusing with MPR770, and
keeps that wiring from its next saved command on; undo back to a state saved the old way too."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from campaign_support import as_version_2, make_campaign  # noqa: E402

from interpreter.campaign import commands  # noqa: E402
from interpreter.campaign.integrity import WIRING_KEY  # noqa: E402
from interpreter.campaign.store import Store  # noqa: E402
from interpreter.cli import main  # noqa: E402


def stored_wiring(path: str) -> dict | None:
    conn = sqlite3.connect(path)
    try:
        parameters = json.loads(conn.execute("SELECT parameters FROM ruleset").fetchone()[0])
    finally:
        conn.close()
    return parameters.get(WIRING_KEY)


def made_the_old_way(tmp: Path, **options) -> str:
    """A campaign file as mprules wrote it before the wiring: no wiring stored in its pin, nor in
    the states its journal keeps."""
    path = make_campaign(tmp, **options)
    assert main(["campaign", "sleep", path, "alice", "--hours", "8", "--seed", "1"]) == 0
    as_version_2(path)  # whole states in the journal, as files made before the wiring kept them
    conn = sqlite3.connect(path)
    try:
        parameters = json.loads(conn.execute("SELECT parameters FROM ruleset").fetchone()[0])
        del parameters[WIRING_KEY]
        conn.execute("UPDATE ruleset SET parameters = ?", (json.dumps(parameters),))
        for seq, before in conn.execute("SELECT seq, before FROM journal WHERE before IS NOT NULL").fetchall():
            state = json.loads(before)
            del state["pin"]["campaign"], state["pin"]["manifest"]
            conn.execute("UPDATE journal SET before = ? WHERE seq = ?", (json.dumps(state), seq))
        conn.commit()
    finally:
        conn.close()
    assert stored_wiring(path) is None
    return path


# (command, arguments): each runs a rule the manifest wires
COMMANDS = [
    ("sleep", ["alice", "--hours", "8", "--seed", "2"]),
    ("dawn", ["--seed", "3"]),
    ("advance", ["--minutes", str(24 * 60), "--seed", "4"]),
    ("circulate", ["alice", "--all", "--seed", "5"]),
    ("rest", ["short", "--seed", "6"]),
    ("brief", ["instant", "alice", "paid"]),
    ("show", []),
    ("log", []),
    ("export", []),
]


@pytest.mark.parametrize("command, args", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_an_old_campaign_runs_with_the_manifests_wiring(command: str, args: list[str], tmp_path: Path,
                                                        capsys) -> None:
    path = made_the_old_way(tmp_path)
    status = main(["--lang", "en", "campaign", command, path, *args])
    err = capsys.readouterr().err
    assert "MPR770" not in err
    assert status == 0, err


def test_the_wiring_is_kept_from_the_next_saved_command(tmp_path: Path) -> None:
    path = made_the_old_way(tmp_path)
    with Store.open(path) as store:
        wiring = store.load().pin.campaign
        commands.dawn(store, seed=1)
    assert wiring["deck"] == "cards.deck" and stored_wiring(path)["campaign"] == wiring
    assert stored_wiring(path)["manifest"].endswith("ruleset.yaml")


def test_undo_to_a_state_saved_the_old_way(tmp_path: Path) -> None:
    path = made_the_old_way(tmp_path)
    with Store.open(path) as store:
        result = commands.undo(store)
        assert result["undone"]["command"] == "sleep"
        assert store.load().pin.campaign["deck"] == "cards.deck"


@pytest.mark.parametrize("command, status, code", [
    ("log", 0, None), ("export", 0, None), ("undo", 0, None), ("dawn", 1, "MPR628")])
def test_without_its_ruleset_an_old_campaign_still_opens(command: str, status: int, code: str | None,
                                                         tmp_path: Path, capsys) -> None:
    """The one pinned deck rule stands for the deck: the file is read, not called damaged."""
    import shutil

    path = made_the_old_way(tmp_path, private=True)
    shutil.rmtree(tmp_path / "rules_c.db")
    capsys.readouterr()
    assert main(["--lang", "en", "campaign", command, path]) == status
    err = capsys.readouterr().err
    assert "MPR620" not in err and (code is None or code in err), err
