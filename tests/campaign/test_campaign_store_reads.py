"""The store reads a campaign's state once and writes only the tables whose part of it changed; it
never serves a state the file no longer holds: after another connection's commit, after a
rolled-back write, or after its own write, what it gives is what the tables hold."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from campaign_support import make_campaign
from interpreter.campaign import commands
from interpreter.campaign.store import STATE_TABLES, State, Store, _json
from rules_dsl.frozen import replace

ORDER = {"cards": "place, holder, position", "briefing_uses": "seq", "items": "position",
         "characters": "position", "campaign": "id", "ruleset": "id"}


def rows(path: str) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY {ORDER[t]}").fetchall() for t, _ in STATE_TABLES}
    finally:
        conn.close()


def written_whole(path: str, state: State, tmp_path: Path) -> dict[str, list[tuple]]:
    """The tables of a copy of ``path`` once ``state`` is written into every table."""
    copy = str(tmp_path / "whole.db")
    shutil.copy(path, copy)
    with Store.open(copy) as store:
        store._loaded = None  # nothing known of the file: every table is written
        with store.transaction():
            store.save(state)
    return rows(copy)


STEPS = [
    ("sleep", ("alice", 8), {"seed": 3}),
    ("dawn", (), {"seed": 4}),
    ("brief", ("instant", "alice", "scout"), {}),
    ("circulate", ("battery",), {"take_all": True, "seed": 5}),
    ("advance", (3000,), {"seed": 6}),
    ("undo", (), {}),
    ("undo", (), {}),
]


def test_each_command_leaves_the_tables_a_whole_write_would(tmp_path) -> None:
    path = make_campaign(tmp_path)
    for name, args, kwargs in STEPS:
        with Store.open(path) as store:
            getattr(commands, name)(store, *args, **kwargs)
            state = store.load()  # the state the command wrote, as this store keeps it
        assert rows(path) == written_whole(path, state, tmp_path), name


def test_a_commit_of_another_connection_is_read_again(tmp_path) -> None:
    path = make_campaign(tmp_path)
    with Store.open(path) as reader, Store.open(path) as writer:
        before = reader.load()
        commands.advance(writer, 60)
        assert reader.load().clock_minutes == before.clock_minutes + 60
        assert reader.load() is reader.load()  # unchanged since: not read again


def test_a_rolled_back_write_is_forgotten(tmp_path) -> None:
    path = make_campaign(tmp_path)
    with Store.open(path) as store:
        before = store.load()
        with pytest.raises(RuntimeError), store.transaction():
            store.save(before.evolve(clock_minutes=before.clock_minutes + 5))
            raise RuntimeError("the command fails after writing")
        assert store.load() == before
        assert rows(path)["campaign"][0][1] == before.clock_minutes


def test_a_write_is_what_the_store_reads_next(tmp_path) -> None:
    path = make_campaign(tmp_path)
    with Store.open(path) as store:
        later = store.load().evolve(clock_minutes=store.load().clock_minutes + 7)
        with store.transaction():
            store.save(later)
        assert store.load() is later
    with Store.open(path) as again:
        assert again.load() == later


def test_a_state_is_journaled_as_its_json_with_the_rules_text_read(tmp_path) -> None:
    path = make_campaign(tmp_path)
    commands_run = [("sleep", ("alice", 8), {"seed": 3}), ("brief", ("instant", "alice", "scout"), {})]
    for name, args, kwargs in commands_run:
        with Store.open(path) as store:
            getattr(commands, name)(store, *args, **kwargs)
    with Store.open(path) as store:
        state = store.load()
        assert store._text_of_rules(state.pin) == _json(state.pin.rules)  # the text as stored
        assert store._state_json(state) == _json(state.dump())
        other = state.evolve(pin=replace(state.pin, rules={**state.pin.rules, "x": {"kind": "Deck"}}))
        assert store._state_json(other) == _json(other.dump())
        before = [json.loads(b) for (b,) in sqlite3.connect(path).execute(
            "SELECT before FROM journal WHERE before IS NOT NULL ORDER BY seq")]
    # what changed, never the pin again (the commands did not change it)
    assert all(set(b) == {"@patch", "@base"} and "pin" not in b["@patch"]["d"] for b in before)
    assert len(before) == 2 and state.pin == State.from_dump(state.dump()).pin


@pytest.mark.parametrize("readonly", [True, False])
@pytest.mark.parametrize("changed_meanwhile, failures, opens", [
    (True, 1, 2),    # a read torn by another command's write: read again, and it is whole
    (True, 4, 5),    # torn four times: the fifth read is the last one tried
    (False, 1, 1),   # the file did not change: it is damaged, refused at once
])
def test_a_read_torn_by_another_command_is_read_again(tmp_path, monkeypatch, readonly,
                                                      changed_meanwhile, failures, opens):
    from interpreter.campaign import files
    from rules_dsl.errors import Location, MprError

    path = make_campaign(tmp_path)
    real = Store._open_once.__func__
    calls: list[int] = []

    def torn(cls, file, ro):
        calls.append(1)
        if len(calls) <= failures:
            if changed_meanwhile:  # another command wrote while this one read
                st = os.stat(file)
                os.utime(file, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
            raise MprError(files.NOT_SQLITE, Location(file), file=file, detail="database disk image is malformed")
        return real(cls, file, ro)

    monkeypatch.setattr(Store, "_open_once", classmethod(torn))
    if opens > failures:
        with Store.open(path, readonly=readonly) as store:
            assert store.load().clock_minutes >= 0
    else:
        with pytest.raises(MprError) as raised:
            Store.open(path, readonly=readonly)
        assert raised.value.code == files.NOT_SQLITE
    assert len(calls) == opens


def test_a_read_torn_five_times_is_refused(tmp_path, monkeypatch):
    from interpreter.campaign import files, store as store_module
    from rules_dsl.errors import Location, MprError

    path = make_campaign(tmp_path)
    states = iter(range(100))
    monkeypatch.setattr(files, "file_state", lambda p: next(states))  # always changed meanwhile
    calls: list[int] = []

    def torn(cls, file, ro):
        calls.append(1)
        raise MprError(files.NOT_SQLITE, Location(file), file=file, detail="torn")

    monkeypatch.setattr(Store, "_open_once", classmethod(torn))
    with pytest.raises(MprError):
        Store.open(path)
    assert len(calls) == store_module._READS
