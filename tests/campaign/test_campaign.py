"""The campaign store and its commands (R1-R5 in a campaign): each command, the invariants,
seeded repeatability, undo, bad input (coded errors, the file byte-for-byte unchanged), the CLI."""
from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
import yaml

from campaign_support import CHARS, dump, holders, make_campaign
from interpreter.campaign import commands
from interpreter.campaign.store import APPLICATION_ID, SCHEMA_VERSION, Store
from interpreter.cli import main
from rules_dsl.errors import MprError

COMPOSITION = [f"{s}{r}" for s in "SHDC" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]] + ["JK1", "JK2"]
LONG_SLEEP = {"overrides": {"rest.long": {"params": {"effects": [{"effect": "sleep", "hours": 8}]}}}}
NO_CIRCULATION = {"not_adopted": ["circulation.sleep", "circulation.dawn", "circulation.special"]}
OWNER_HAND = {"overrides": {"circulation.dawn": {"params": {"redraw_to": "owner_hand"}}}}
OPTIONS = {"overrides": {"briefing.instant": {"params": {"options": ["scout", "ready"]}}}}


def all_cards(path: str) -> Counter:
    cards = dump(path)["cards"]
    total = Counter(cards["deck"]) + Counter(cards["discard"])
    for held in cards["holders"].values():
        total.update(held)
    return total


def counts(path: str) -> dict[str, int]:
    return {h: len(c) for h, c in holders(path).items()}


def run(path: str, command: str, *args, **kwargs):
    with Store.open(path) as store:
        return getattr(commands, command)(store, *args, **kwargs)


def refused(path: str, command: str, *args, **kwargs) -> str:
    before = Path(path).read_bytes()
    with pytest.raises(MprError) as error:
        run(path, command, *args, **kwargs)
    assert Path(path).read_bytes() == before
    return error.value.code


# -- init ------------------------------------------------------------------------------------------

def test_init_places_given_cards_then_deals(tmp_path):
    path = make_campaign(tmp_path)
    held = holders(path)
    assert held["alice"][:2] == ["SA", "H10"] and len(held["alice"]) == 4
    assert held["battery"][0] == "JK1" and len(held["battery"]) == 2
    assert len(held["bob"]) == 3
    assert all_cards(path) == Counter(COMPOSITION)
    assert dump(path)["clock_minutes"] == 360  # the campaign starts at dawn


def test_same_seed_same_campaign_other_seed_differs(tmp_path):
    one = dump(make_campaign(tmp_path, seed=5, name="a.db"))["cards"]
    two = dump(make_campaign(tmp_path, seed=5, name="b.db"))["cards"]
    other = dump(make_campaign(tmp_path, seed=6, name="c.db"))["cards"]
    assert one == two and one != other


@pytest.mark.parametrize("chars, code", [
    ({"characters": [{"id": "a", "hand": ["SA", "SA"]}]}, "MPR601"),
    ({"characters": [{"id": "a", "hand": ["SA"]}, {"id": "b", "hand": ["SA"]}]}, "MPR601"),
    ({"characters": [{"id": "a", "hand": ["SZ"]}]}, "MPR600"),
    ({"characters": [{"id": "a", "items": [{"id": "a"}]}]}, "MPR642"),
    ({"characters": [{"id": "a", "hand_sise": 3}]}, "MPR641"),
    ({"characters": [{"id": "a", "hand": ["SA", "S2"], "hand_size": 1}]}, "MPR643"),
    ({"characters": [{"id": "a", "hand_size": -1}]}, "MPR640"),
    ({"characters": [{"id": "a b"}]}, "MPR640"),
    ({"characters": "alice"}, "MPR640"),
    ({"people": []}, "MPR641"),
    ({"characters": [{"id": "a", "hand_size": 55}]}, "MPR604"),
])
def test_init_refuses_bad_characters(tmp_path, chars, code):
    with pytest.raises(MprError) as error:
        make_campaign(tmp_path, chars=chars)
    assert error.value.code == code
    assert not (tmp_path / "c.db").exists()


def test_a_card_error_names_file_line_and_column(tmp_path):
    chars = tmp_path / "chars.yaml"
    chars.write_text("characters:\n  - id: a\n    hand: [SA, SA]\n", encoding="utf-8")
    from campaign_support import make_ruleset
    with pytest.raises(MprError) as error:
        commands.init(str(tmp_path / "c.db"), str(chars), ruleset=str(make_ruleset(tmp_path / "r")))
    assert (error.value.code, error.value.loc.line, error.value.loc.file) == ("MPR601", 3, str(chars))


def test_init_does_not_overwrite_without_force(tmp_path):
    path = make_campaign(tmp_path)
    before, cards = Path(path).read_bytes(), dump(path)["cards"]
    with pytest.raises(MprError) as error:
        make_campaign(tmp_path, seed=9)
    assert error.value.code == "MPR624" and Path(path).read_bytes() == before
    make_campaign(tmp_path, seed=9, force=True)
    assert dump(path)["cards"] != cards


# -- sleep, dawn, circulate --------------------------------------------------------------------------

def test_sleep_circulates_every_card_of_the_sleeper(tmp_path):
    path = make_campaign(tmp_path)
    before = holders(path)
    result = run(path, "sleep", "alice", 8, seed=3)
    after = holders(path)
    assert result["changes"][0]["out"] == before["alice"]
    assert after["alice"] == result["changes"][0]["in"] and len(after["alice"]) == 4
    assert after["bob"] == before["bob"] and dump(path)["cards"]["discard"] == before["alice"]


@pytest.mark.parametrize("manifest, hours, code", [
    (None, 0.5, "MPR651"), (NO_CIRCULATION, 8, "MPR650"),
])
def test_sleep_that_changes_nothing_says_why(tmp_path, manifest, hours, code):
    path = make_campaign(tmp_path, manifest=manifest)
    before = dump(path)["cards"]
    result = run(path, "sleep", "alice", hours)
    assert result["changes"] == [] and [n["code"] for n in result["notes"]] == [code]
    assert dump(path)["cards"] == before


@pytest.mark.parametrize("command, args, kwargs, code", [
    ("sleep", ("carol",), {"hours": 8}, "MPR630"),
    ("sleep", ("battery",), {"hours": 8}, "MPR630"),
    ("sleep", ("alice",), {"hours": -1}, "MPR610"),
    ("circulate", ("carol",), {"take_all": True}, "MPR631"),
    ("circulate", ("alice",), {"count": 1, "select": "gm", "cards": ["C9"]}, "MPR602"),
    ("circulate", ("bob",), {"count": 4}, "MPR603"),
    ("circulate", ("alice",), {"select": "player", "cards": ["SA", "H10", "SA"]}, "MPR601"),
    ("circulate", ("alice",), {}, "MPR613"),
    ("advance", (-10,), {}, "MPR635"),
    ("rest", ("siesta",), {}, "MPR637"),
    ("brief", ("leisurely", "alice", "x"), {}, "MPR637"),
    ("brief", ("instant", "carol", "x"), {}, "MPR630"),
])
def test_bad_input_is_a_coded_error_and_the_file_is_unchanged(tmp_path, command, args, kwargs, code):
    path = make_campaign(tmp_path)
    assert refused(path, command, *args, **kwargs) == code


def test_special_circulation_keeps_counts_and_is_refused_when_not_adopted(tmp_path):
    path = make_campaign(tmp_path)
    before = counts(path)
    result = run(path, "circulate", "alice", count=2, select="gm", cards=["H10", "SA"], seed=1)
    assert result["changes"][0]["out"] == ["H10", "SA"] and counts(path) == before
    run(path, "circulate", "battery", take_all=True, seed=2)
    run(path, "circulate", "bob", count=1, seed=3)
    assert counts(path) == before and all_cards(path) == Counter(COMPOSITION)
    off = make_campaign(tmp_path, manifest=NO_CIRCULATION, name="off.db")
    assert refused(off, "circulate", "alice", take_all=True) == "MPR402"


@pytest.mark.parametrize("manifest, expect", [
    (None, {"alice": 4, "battery": 2}),
    (OWNER_HAND, {"alice": 6, "battery": 0}),
    (NO_CIRCULATION, {"alice": 4, "battery": 2}),
])
def test_dawn_moves_the_clock_to_the_next_dawn_and_renews_items(tmp_path, manifest, expect):
    path = make_campaign(tmp_path, manifest=manifest)
    battery = holders(path)["battery"]
    result = run(path, "dawn", seed=4)
    assert result["clock_minutes"] == 360 + 24 * 60 and result["minutes"] == 24 * 60
    after = holders(path)
    assert {h: len(after[h]) for h in expect} == expect
    renewed = manifest is not NO_CIRCULATION
    assert (dump(path)["cards"]["discard"] == battery) == renewed


@pytest.mark.parametrize("minutes, dawns", [(0, 0), (60, 0), (1079, 0), (1080, 1), (1440, 1),
                                            (1441, 1), (2520, 2), (3 * 1440, 3)])
def test_advance_applies_dawn_once_per_dawn_crossed(tmp_path, minutes, dawns):
    path = make_campaign(tmp_path, start="12:00")
    result = run(path, "advance", minutes, seed=1)
    assert [n["code"] for n in result["notes"]].count("MPR653") == dawns
    assert len(result["changes"]) == dawns and result["clock_minutes"] == 720 + minutes


@pytest.mark.parametrize("tier, manifest, minutes, changed", [
    ("short", None, 10, set()),
    ("medium", None, 60, set()),
    ("long", None, 480, set()),
    ("long", LONG_SLEEP, 480, {"alice", "bob"}),
    ("rest.long", LONG_SLEEP, 480, {"alice", "bob"}),
])
def test_rest_advances_the_clock_and_applies_its_effects(tmp_path, tier, manifest, minutes, changed):
    path = make_campaign(tmp_path, manifest=manifest, start="12:00")
    result = run(path, "rest", tier, seed=2)
    assert result["clock_minutes"] == 720 + minutes
    assert {c["holder"] for c in result["changes"]} == changed


def test_a_long_rest_over_dawn_applies_both_in_time_order(tmp_path):
    path = make_campaign(tmp_path, manifest=LONG_SLEEP, start="23:00")
    result = run(path, "rest", "long", seed=2)
    assert [c["holder"] for c in result["changes"]] == ["alice", "bob", "battery"]
    assert result["clock"] == "day 2 07:00" and all_cards(path) == Counter(COMPOSITION)


# -- briefing --------------------------------------------------------------------------------------

@pytest.mark.parametrize("tier, allowed_uses", [("instant", 1), ("tense", 6), ("ample", 12)])
def test_briefing_allowance(tmp_path, tier, allowed_uses):
    path = make_campaign(tmp_path)
    for use in range(allowed_uses):
        assert run(path, "brief", tier, "alice", "anything")["used"] == use + 1
    if tier != "ample":
        assert refused(path, "brief", tier, "alice", "anything") == "MPR661"
    assert run(path, "brief", tier, "bob", "anything")["used"] == 1
    assert run(path, "brief", tier, "alice", "anything", new=True)["used"] == 1


def test_briefing_options_are_checked_when_listed(tmp_path):
    path = make_campaign(tmp_path, manifest=OPTIONS)
    assert run(path, "brief", "instant", "alice", "scout")["notes"] == []
    assert refused(path, "brief", "instant", "bob", "scuot") == "MPR660"
    with pytest.raises(MprError) as error:
        run(path, "brief", "instant", "bob", "scuot")
    known = error.value.message("ja").rpartition("選択肢: ")[2]
    assert "、" in known and ", " not in known  # a Japanese list joined as Japanese joins it
    assert ", " in error.value.message("en").rpartition("options: ")[2]


# -- undo, log, export -----------------------------------------------------------------------------

@pytest.mark.parametrize("command, args, kwargs", [
    ("sleep", ("alice", 8), {"seed": 1}),
    ("dawn", (), {"seed": 2}),
    ("circulate", ("bob",), {"count": 2, "seed": 3}),
    ("rest", ("long",), {"seed": 4}),
    ("advance", (5000,), {"seed": 5}),
    ("brief", ("tense", "alice", "x"), {}),
])
def test_undo_restores_the_exact_previous_state(tmp_path, command, args, kwargs):
    path = make_campaign(tmp_path, manifest=LONG_SLEEP)
    run(path, "sleep", "bob", 8, seed=9)
    before = dump(path)
    run(path, command, *args, **kwargs)
    assert dump(path) != before
    result = run(path, "undo")
    assert dump(path) == before and result["undone"]["command"] == command


def test_undo_walks_back_and_stops_at_init(tmp_path):
    path = make_campaign(tmp_path)
    states = [dump(path)]
    for seed in range(3):
        run(path, "sleep", "alice", 8, seed=seed)
        states.append(dump(path))
    for expected in reversed(states[:-1]):
        run(path, "undo")
        assert dump(path) == expected
    assert refused(path, "undo") == "MPR634"
    log = run(path, "log")["entries"]
    assert [e["command"] for e in log] == ["init", "sleep", "sleep", "sleep", "undo", "undo", "undo"]
    assert [e["undone_by"] for e in log[1:4]] == [7, 6, 5]


def test_seeded_commands_repeat_exactly(tmp_path):
    paths = [make_campaign(tmp_path, name=f"{n}.db", manifest=LONG_SLEEP) for n in range(2)]
    for path in paths:
        run(path, "sleep", "alice", 8, seed=11)
        run(path, "circulate", "bob", count=2, seed=12)
        run(path, "rest", "long", seed=13)
    one, two = (dump(p)["cards"] for p in paths)
    assert one == two


def test_export_reads_back_as_characters(tmp_path):
    path = make_campaign(tmp_path)
    run(path, "sleep", "alice", 8, seed=1)
    data = run(path, "export")
    assert data["characters"][0]["hand"] == holders(path)["alice"]
    assert data["characters"][0]["items"][0]["held_cards"] == holders(path)["battery"]
    assert data["campaign"]["clock_minutes"] == 360
    again = make_campaign(tmp_path, chars=data, name="again.db")
    assert holders(again) == holders(path)


# -- the file itself ----------------------------------------------------------------------------------

def test_the_file_is_a_versioned_wal_campaign(tmp_path):
    path = make_campaign(tmp_path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()


def _newer(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("spoil, code, exit_code", [
    (lambda p: p.write_text("characters: []\n"), "MPR620", 3),
    (lambda p: p.write_bytes(b""), "MPR620", 3),
    (_foreign, "MPR621", 3),
    (_newer, "MPR622", 3),
    (_corrupt, "MPR620", 3),
    (lambda p: p.unlink(missing_ok=True), "MPR623", 3),
])
def test_a_file_that_is_not_a_usable_campaign_is_refused_unchanged(tmp_path, capsys, spoil, code, exit_code):
    path = Path(make_campaign(tmp_path)) if spoil in (_newer, _corrupt) else tmp_path / "x.db"
    if spoil is _corrupt:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    spoil(path)
    before = path.read_bytes() if path.exists() else None
    for command in (["show"], ["sleep", "alice", "--hours", "8"], ["undo"]):
        argv = ["campaign", command[0], str(path), *command[1:]]
        assert main(argv) == exit_code
        assert code in capsys.readouterr().err
    assert (path.read_bytes() if path.exists() else None) == before


def test_a_changed_ruleset_is_refused_until_repinned(tmp_path):
    path = make_campaign(tmp_path, private=True)
    rest = tmp_path / "rules_c.db" / "rest.yaml"
    rest.write_text(rest.read_text(encoding="utf-8").replace("duration_minutes: 10", "duration_minutes: 15"),
                    encoding="utf-8")
    assert refused(path, "rest", "short") == "MPR632"
    assert run(path, "show")["ruleset_changed"] is True
    assert [n["code"] for n in run(path, "repin")["notes"]] == ["MPR664"]
    assert run(path, "show")["ruleset_changed"] is False
    assert run(path, "rest", "short")["clock_minutes"] == 360 + 15
    assert [n["code"] for n in run(path, "repin")["notes"]] == ["MPR665"]


def test_repin_refuses_a_changed_deck(tmp_path):
    path = make_campaign(tmp_path, private=True)
    cards = tmp_path / "rules_c.db" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("jokers: [JK1, JK2]", "jokers: [JK1, JK2, JK3]"),
                     encoding="utf-8")
    assert refused(path, "repin") == "MPR638"


# -- the command line ----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, exit_code, out", [
    (["show", "{f}", "--format", "json"], 0, '"deck_count": 45'),
    (["sleep", "{f}", "alice", "--hours", "8", "--seed", "1", "--format", "json"], 0, '"out"'),
    (["sleep", "{f}", "alice", "--hours", "8", "--seed", "1"], 0, "alice: out SA H10"),
    (["circulate", "{f}", "alice", "--count", "1", "--select", "gm", "--cards", "SA"], 0, "alice: out SA |"),
    (["circulate", "{f}", "alice", "--all", "--count", "1"], 2, ""),
    (["circulate", "{f}", "alice", "--count", "1", "--cards", ",,"], 2, ""),
    (["sleep", "{f}", "alice"], 2, ""),
    (["sleep", "{f}", "alice", "--hours", "-2"], 1, ""),
    (["advance", "{f}", "--minutes", "-1"], 1, ""),
    (["rest", "{f}", "long", "--format", "json"], 0, '"clock_minutes": 840'),
    (["brief", "{f}", "instant", "alice", "x"], 0, "uses 1/1"),
    (["log", "{f}"], 0, "#1 started the campaign"),
    (["undo", "{f}"], 1, ""),
    (["export", "{f}"], 0, "held_cards: [JK1"),
    (["--lang", "ja", "show", "{f}"], 0, "山札: 45 枚"),
])
def test_cli(tmp_path, capsys, argv, exit_code, out):
    path = make_campaign(tmp_path)
    argv = [a.replace("{f}", path) for a in argv]
    if argv[0] == "--lang":
        argv = ["--lang", "ja", "campaign", *argv[2:]]
    else:
        argv = ["campaign", *argv]
    assert main(argv) == exit_code
    assert out in capsys.readouterr().out


def test_cli_init_and_export_to_a_file(tmp_path, capsys):
    from campaign_support import make_ruleset
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    rules = make_ruleset(tmp_path / "r")
    path = str(tmp_path / "cli.db")
    assert main(["campaign", "init", path, "--characters", str(chars), "--ruleset", str(rules),
                 "--seed", "3", "--adopt", "circulation.sleep=no", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["deck_count"] == 45
    assert main(["campaign", "sleep", path, "alice", "--hours", "8"]) == 0
    assert "MPR650" in capsys.readouterr().out
    assert main(["campaign", "export", path, "--output", str(tmp_path / "out.yaml")]) == 0
    assert yaml.safe_load((tmp_path / "out.yaml").read_text(encoding="utf-8"))["characters"][1]["id"] == "bob"
    assert main(["campaign", "init", path, "--characters", str(chars), "--adopt", "x=maybe"]) == 2


def test_an_older_file_is_migrated_on_open(tmp_path, monkeypatch):
    from interpreter.campaign import store as store_module

    path = make_campaign(tmp_path)
    state = dump(path)
    after = store_module.SCHEMA_VERSION + 1
    monkeypatch.setattr(store_module, "MIGRATIONS",
                        [*store_module.MIGRATIONS, (after, "CREATE TABLE notes (text TEXT)")])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", after)
    with Store.open(path) as store:
        versions = [v for (v,) in store.conn.execute("SELECT version FROM schema_version ORDER BY version")]
        assert versions == list(range(1, after + 1))
        assert store.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
    assert dump(path) == state


def test_a_ruleset_that_no_longer_loads_is_refused(tmp_path):
    import shutil

    path = make_campaign(tmp_path, private=True)
    shutil.rmtree(tmp_path / "rules_c.db")
    assert refused(path, "sleep", "alice", 8) == "MPR628"
    assert run(path, "show")["ruleset_changed"] is True


@pytest.mark.parametrize("command, args, code", [
    ("sleep", ("alice", 10**6), "MPR636"),
    ("sleep", ("alice", "8"), "MPR636"),
    ("advance", (10**9,), "MPR635"),
    ("circulate", ("alice",), "MPR608"),
])
def test_limits(tmp_path, command, args, code):
    path = make_campaign(tmp_path)
    kwargs = {"count": -1} if command == "circulate" else {}
    assert refused(path, command, *args, **kwargs) == code


def test_campaign_without_a_subcommand_is_a_usage_error(capsys):
    assert main(["campaign"]) == 2


def test_the_long_rest_sleep_variant_circulates_on_a_long_rest_only(tmp_path):
    from interpreter.documents.resources import rulesets_dir

    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    path = str(tmp_path / "v.db")
    commands.init(path, str(chars), ruleset=str(rulesets_dir() / "examples" / "long_rest_sleep"),
                  seed=2, start="12:00")
    assert [n["code"] for n in run(path, "sleep", "alice", 3)["notes"]] == ["MPR651"]
    assert run(path, "rest", "medium", seed=1)["changes"] == []
    result = run(path, "rest", "long", seed=1)
    assert [c["holder"] for c in result["changes"]] == ["alice", "bob"]
    assert counts(path) == {"alice": 4, "bob": 3, "battery": 2}


def test_limits_of_holders_and_deck_size():
    from interpreter.campaign.characters import parse_roster
    from interpreter.solvers.cards import DeckSpec
    from interpreter.solvers.limits import MAX_DECK_CARDS, MAX_HOLDERS

    assert len(parse_roster({"characters": [{"id": f"p{n}"} for n in range(MAX_HOLDERS)]}).characters) \
        == MAX_HOLDERS
    with pytest.raises(MprError) as error:
        parse_roster({"characters": [{"id": f"p{n}"} for n in range(MAX_HOLDERS + 1)]})
    assert error.value.code == "MPR644"
    assert len(DeckSpec.from_params({"suits": ["S"], "ranks": list(range(MAX_DECK_CARDS)),
                                     "jokers": []}).composition) == MAX_DECK_CARDS
    with pytest.raises(MprError) as error:
        DeckSpec.from_params({"suits": ["S"], "ranks": list(range(MAX_DECK_CARDS + 1)), "jokers": []})
    assert error.value.code == "MPR606"


def test_a_year_of_advance_is_the_longest_and_crosses_365_dawns(tmp_path):
    from interpreter.campaign.limits import MAX_ADVANCE_MINUTES

    path = make_campaign(tmp_path, start="12:00")
    result = run(path, "advance", MAX_ADVANCE_MINUTES, seed=1)
    assert [n["code"] for n in result["notes"]].count("MPR653") == 365
    assert refused(path, "advance", MAX_ADVANCE_MINUTES + 1) == "MPR635"
    assert all_cards(path) == Counter(COMPOSITION)


def test_log_shows_the_newest_entries(tmp_path, monkeypatch):
    from interpreter.campaign import commands as module

    path = make_campaign(tmp_path)
    for seed in range(3):
        run(path, "sleep", "bob", 8, seed=seed)
    assert [e["seq"] for e in run(path, "log", last=2)["entries"]] == [3, 4]
    from interpreter.campaign import views
    monkeypatch.setattr(views, "MAX_JOURNAL_SHOWN", 3)
    with Store.open(path) as store:
        assert [e["seq"] for e in module.log(store)["entries"]] == [2, 3, 4]


def test_a_tampered_file_whose_cards_do_not_add_up_is_never_written(tmp_path):
    path = make_campaign(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM cards WHERE card = 'JK2'")
    conn.commit()
    conn.close()
    assert refused(path, "sleep", "alice", 8) == "MPR627"
