"""Export and back: `init` from an export restores the hands, the deck order, the discard pile and the
clock; a hand-edited export that loses or repeats a card, or that does not fit the ruleset's deck, is refused, located. Also the `init`
switches of the contract (`--adopt RULE`, `--no-adopt RULE`) and R3 edge cases of the command line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from campaign_support import CHARS, dump, make_campaign
from interpreter.campaign import commands
from interpreter.campaign.store import Store
from interpreter.cli import main
from rules_dsl.errors import MprError


def run(path: str, command: str, *args, **kwargs):
    with Store.open(path) as store:
        return getattr(commands, command)(store, *args, **kwargs)


def played(tmp_path: Path) -> str:
    """A campaign after a sleep, a circulation and some time: a discard pile, a moved clock."""
    path = make_campaign(tmp_path, seed=5)
    run(path, "sleep", "alice", 8, seed=1)
    run(path, "circulate", "bob", count=2, seed=2)
    run(path, "advance", 95, seed=3)
    return path


def state_of(path: str) -> dict:
    state = dump(path)
    return {"cards": state["cards"], "clock_minutes": state["clock_minutes"]}


def test_init_from_an_export_restores_the_cards_and_the_clock(tmp_path):
    path = played(tmp_path)
    exported = run(path, "export")
    assert exported["campaign"]["discard"] and exported["campaign"]["clock_minutes"] == 360 + 95
    again = make_campaign(tmp_path, chars=exported, name="again.db", seed=99)
    assert state_of(again) == state_of(path)
    assert run(again, "export") == exported


def test_start_overrides_the_exported_clock(tmp_path):
    exported = run(played(tmp_path), "export")
    again = make_campaign(tmp_path, chars=exported, name="again.db", start="12:30")
    assert dump(again)["clock_minutes"] == 12 * 60 + 30


def _edit(exported: dict, how: str) -> dict:
    data = json.loads(json.dumps(exported))
    deck, discard = data["campaign"]["deck"], data["campaign"]["discard"]
    hand = data["characters"][0]["hand"]
    if how == "lost":
        deck.pop()
    elif how == "twice_in_deck":
        deck.append(deck[0])
    elif how == "hand_and_deck":
        deck[0] = hand[0]
    elif how == "discard_and_deck":
        deck.append(discard[0])
    elif how == "unknown":
        deck[0] = "ZZ"
    elif how == "clock":
        data["campaign"]["clock_minutes"] = -1
    elif how == "field":
        data["campaign"]["seed"] = 1
    elif how == "deck_not_a_list":
        data["campaign"]["deck"] = "SA"
    return data


@pytest.mark.parametrize("how, code, where", [
    ("lost", "MPR645", "campaign"),
    ("twice_in_deck", "MPR601", "campaign.deck."),
    ("hand_and_deck", "MPR601", "campaign.deck.0"),
    ("discard_and_deck", "MPR601", "campaign."),
    ("unknown", "MPR645", "campaign"),
    ("clock", "MPR640", "campaign.clock_minutes"),
    ("field", "MPR641", "campaign.seed"),
    ("deck_not_a_list", "MPR640", "campaign.deck"),
])
def test_an_edited_export_that_breaks_the_deck_is_refused(tmp_path, how, code, where):
    exported = run(played(tmp_path), "export")
    chars = tmp_path / "edited.yaml"
    chars.write_text(yaml.safe_dump(_edit(exported, how), allow_unicode=True), encoding="utf-8")
    with pytest.raises(MprError) as error:
        commands.init(str(tmp_path / "new.db"), str(chars), seed=1)
    assert error.value.code == code and error.value.exit_code == 1
    assert where in str(error.value) and str(chars) in str(error.value)
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("argv, adopt", [
    (["--adopt", "circulation.sleep"], {"circulation.sleep": True}),
    (["--adopt", "circulation.sleep=no"], {"circulation.sleep": False}),
    (["--no-adopt", "circulation.dawn", "--adopt", "circulation.sleep=yes"],
     {"circulation.sleep": True, "circulation.dawn": False}),
])
def test_init_adopt_switches_are_recorded(tmp_path, capsys, argv, adopt):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    path = str(tmp_path / "c.db")
    assert main(["campaign", "init", path, "--characters", str(chars), "--seed", "1", *argv]) == 0
    capsys.readouterr()
    assert main(["campaign", "show", path, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ruleset"]["adopt"] == adopt


@pytest.mark.parametrize("argv, code", [
    (["--adopt", "circulation.sleep", "--no-adopt", "circulation.sleep"], "MPR041"),
    (["--adopt", "=yes"], "MPR041"),
    (["--adopt", "circulation.sleep=maybe"], "MPR041"),
])
def test_init_adopt_switches_that_contradict_are_usage_errors(tmp_path, capsys, argv, code):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    assert main(["campaign", "init", str(tmp_path / "c.db"), "--characters", str(chars), *argv]) == 2
    assert code in capsys.readouterr().err
    assert not (tmp_path / "c.db").exists()


def test_circulating_zero_cards_says_none_was_chosen(tmp_path):
    path = make_campaign(tmp_path)
    before = dump(path)["cards"]
    result = run(path, "circulate", "alice", count=0, seed=1)
    assert result["changes"] == [] and [n["code"] for n in result["notes"]] == ["MPR656"]
    assert dump(path)["cards"] == before


def test_all_with_chosen_cards_is_refused_with_a_message_naming_both(tmp_path):
    path = make_campaign(tmp_path)
    with pytest.raises(MprError) as error:
        run(path, "circulate", "alice", take_all=True, cards=["SA"])
    # the library names its inputs; the command line names them by their flags (tests/cli)
    assert error.value.code == "MPR613" and error.value.loc.path == "all/count/cards"
