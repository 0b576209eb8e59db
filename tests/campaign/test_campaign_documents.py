"""The campaign commands follow a document's own logic: a briefing package's constraints and
messages (``brief``), a rest whose effect runs a rule of the ruleset (``rest``), a circulation that
keeps some cards (``keep``, in ``sleep``, ``dawn`` and ``circulate``). Each variant is a GM's
ruleset over the bundled one: new documents and the campaign wiring, run on scripted seeds."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from interpreter.campaign import commands
from interpreter.campaign.store import Store
from interpreter.documents.resources import bundled_ruleset, rulesets_dir
from rules_dsl.errors import MprError

CHARS = {"characters": [
    {"id": "rin", "hand": ["SA", "H2", "JK1"], "hand_size": 3,
     "items": [{"id": "lamp", "held_cards": ["HA", "C5", "DA"], "held_size": 3}]},
    {"id": "kai", "hand": ["D9", "C9"], "hand_size": 2},
]}

UNIQUE = """\
id: t.unique
kind: Package
source: house rule
title: {ja: 重ならない準備, en: Preparations that differ}
inputs:
  type: object
  properties:
    plan: {type: object, additionalProperties: {type: array, items: {type: string}}}
    pcs: {type: array, items: {type: string}}
  required: [plan]
params: {allowance: 2, counting: total, options: [scout, ready, cover], warn_at: 2}
param_schema:
  warn_at: {type: integer}
plan:
  sides:
    - {plan: plan, members: pcs, label: {ja: PC, en: PC}, counts: per_pc,
       messages: {over_allowance: {ja: "{name} はもう準備できません", en: "{name} can prepare no more"}}}
constraints:
  - id: taken
    for_each: [{name: pc, in: plan}, {name: option, in: "plan[pc]"}]
    check: "count([o for p in keys(plan) if p != pc for o in plan[p]], option) == 0"
    path: "plan.{pc}"
    message: {ja: "{option} は他のPCが選んでいます", en: "{option} is taken by another PC"}
  - id: busy
    severity: note
    check: "sum(len(plan[p]) for p in keys(plan)) < params.warn_at"
    message: {ja: "準備は {sum(len(plan[p]) for p in keys(plan))} 回になりました", en: "{sum(len(plan[p]) for p in keys(plan))} preparations so far"}
"""

CAMP = """\
id: t.camp
kind: Package
source: house rule
title: {ja: 野営（4時間）, en: A camp (4 hours)}
effect_types:
  sleep: {amount: hours, runs: sleep, minutes_per_unit: 60}
  storm: {amount: cards, rule: t.storm, value: result.value, runs: special}
params:
  duration_minutes: 240
  effects: [{effect: sleep, hours: 3}, {effect: storm}]
---
id: t.storm
kind: RollTable
source: house rule
title: {ja: 嵐の表, en: Storm table}
params: {roll: 1d6}
rows:
  - {roll: [1, 3], id: calm, value: 0}
  - {roll: [4, 6], id: storm, value: 2}
"""

KEEP = """\
id: t.{slot}
kind: Circulation
circulation: {mode}
deck: cards.deck
keep: "{keep}"
source: house rule
title: {{en: keeps}}
params: {params}
"""
PARAMS = {"after_minimum": "{min_sleep_hours: 1}", "all_holders": "{renews: [items, characters], redraw_to: holder}",
          "ordered": "{selection: [random, player, gm]}"}
THRESHOLD = "threshold: {amount: hours, minimum: min_sleep_hours, short: short_sleep}\n"


def campaign(tmp: Path, docs: dict[str, str], wiring: dict[str, Any], start: str = "20:00") -> str:
    folder = tmp / "rules"
    folder.mkdir(parents=True)
    manifest = {"id": "t", "version": "0.1.0", "title": {"en": "t"}, "extends": str(bundled_ruleset()),
                "campaign": wiring}
    (folder / "ruleset.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    (tmp / "chars.yaml").write_text(yaml.safe_dump(CHARS), encoding="utf-8")
    path = str(tmp / "c.mpc")
    commands.init(path, str(tmp / "chars.yaml"), ruleset=str(folder), seed=1, start=start)
    return path


def run(path: str, command: str, *args: Any, **kwargs: Any) -> Any:
    with Store.open(path) as store:
        return getattr(commands, command)(store, *args, **kwargs)


def held(path: str) -> dict[str, list[str]]:
    with Store.open(path) as store:
        return {holder: list(cards) for holder, cards in store.load().cards.holders}


@pytest.fixture()
def briefing(tmp_path: Path) -> str:
    return campaign(tmp_path, {"unique.yaml": UNIQUE}, {"briefings": {"unique": "t.unique"}})


BRIEFS = [  # (uses before, the use, the code refusing it or None, words of its message)
    ([], ("rin", "scout"), None, ""),
    ([("rin", "scout")], ("kai", "scout"), "MPR782", "scout is taken by another PC"),
    ([("rin", "scout")], ("rin", "scout"), None, ""),
    ([("rin", "scout"), ("rin", "ready")], ("rin", "cover"), "MPR661", "rin can prepare no more"),
    ([], ("rin", "sout"), "MPR660", "'sout' is not an option of t.unique"),
]


@pytest.mark.parametrize("before, use, code, words", BRIEFS)
def test_brief_applies_the_package_s_constraints_and_messages(briefing: str, before: list, use: tuple,
                                                             code: str | None, words: str) -> None:
    for pc, option in before:
        run(briefing, "brief", "unique", pc, option)
    if code is None:
        assert run(briefing, "brief", "unique", *use)["option"] == use[1]
        return
    with pytest.raises(MprError) as error:
        run(briefing, "brief", "unique", *use)
    assert error.value.code == code
    assert words in error.value.message("en")


def test_brief_refuses_in_japanese_and_shows_a_note(briefing: str) -> None:
    run(briefing, "brief", "unique", "rin", "scout")
    with pytest.raises(MprError) as error:
        run(briefing, "brief", "unique", "kai", "scout")
    assert "scout は他のPCが選んでいます" in error.value.message("ja")
    notes = run(briefing, "brief", "unique", "kai", "ready")["notes"]
    assert [n["args"]["message"] for n in notes if n["code"] == "MPR783"] == [
        {"ja": "準備は 2 回になりました", "en": "2 preparations so far"}]


@pytest.mark.parametrize("seed, storm", [(1, 0), (5, 2), (7, 0), (9, 2)])
def test_rest_runs_the_rule_of_an_effect_and_circulates_that_many(tmp_path: Path, seed: int,
                                                                  storm: int) -> None:
    path = campaign(tmp_path, {"camp.yaml": CAMP}, {"rests": {"camp": "t.camp"}})
    before = held(path)
    result = run(path, "rest", "camp", seed=seed)
    assert result["clock"] == "day 2 00:00"
    sleeps, storms = result["changes"][:2], result["changes"][2:]
    assert [(c["holder"], c["out"]) for c in sleeps] == [("rin", before["rin"]), ("kai", before["kai"])]
    assert [(c["holder"], len(c["out"]), len(c["in"])) for c in storms] == \
        ([("rin", storm, storm), ("kai", storm, storm)] if storm else [])
    assert all(set(c["out"]) <= set(s["in"]) for c, s in zip(storms, sleeps))  # after the sleep


def test_a_rest_that_runs_rules_is_the_same_on_the_same_seed(tmp_path: Path) -> None:
    first = campaign(tmp_path / "a", {"camp.yaml": CAMP}, {"rests": {"camp": "t.camp"}})
    second = campaign(tmp_path / "b", {"camp.yaml": CAMP}, {"rests": {"camp": "t.camp"}})
    assert run(first, "rest", "camp", seed=7)["changes"] == run(second, "rest", "camp", seed=7)["changes"]


KEEPS = [  # (slot, mode, keep, command and its arguments, the cards that must stay, with whom)
    ("sleep", "after_minimum", "card.joker", ("sleep", "rin", 8), {"rin": {"JK1"}}),
    ("dawn", "all_holders", "card.rank == 'A'", ("dawn",), {"lamp": {"HA", "DA"}, "rin": {"SA"}}),
    ("special", "ordered", "card.suit == 'C'", ("circulate", "kai"), {"kai": {"C9"}}),
]


@pytest.mark.parametrize("slot, mode, keep, command, stay", KEEPS, ids=[k[0] for k in KEEPS])
def test_a_circulation_keeps_the_cards_its_keep_names(tmp_path: Path, slot: str, mode: str, keep: str,
                                                     command: tuple, stay: dict) -> None:
    doc = KEEP.format(slot=slot, mode=mode, keep=keep, params=PARAMS[mode])
    if mode == "after_minimum":
        doc += THRESHOLD
    path = campaign(tmp_path, {"keep.yaml": doc}, {slot: f"t.{slot}"})
    before = held(path)
    kwargs = {"take_all": True} if command[0] == "circulate" else {}
    run(path, *command, seed=3, **kwargs)
    after = held(path)
    for holder, cards in stay.items():
        assert cards <= set(after[holder])
        assert set(before[holder]) - cards <= set(before[holder]) - set(after[holder])  # the rest went


def test_every_card_kept_is_said(tmp_path: Path) -> None:
    doc = KEEP.format(slot="sleep", mode="after_minimum", keep="true", params=PARAMS["after_minimum"])
    path = campaign(tmp_path, {"keep.yaml": doc + THRESHOLD}, {"sleep": "t.sleep"})
    result = run(path, "sleep", "rin", 8, seed=3)
    assert result["changes"] == [] and [n["code"] for n in result["notes"]] == ["MPR786"]


# -- the house-rule examples of rulesets/examples/house_rules/ in a campaign -----------------------

def example(tmp: Path, name: str, start: str = "20:00") -> str:
    (tmp / "chars.yaml").write_text(yaml.safe_dump(CHARS), encoding="utf-8")
    path = str(tmp / "c.mpc")
    commands.init(path, str(tmp / "chars.yaml"), ruleset=str(rulesets_dir() / "examples" / "house_rules" / name),
                  seed=1, start=start)
    return path


def test_example_instant_distinct_options_in_campaign_brief(tmp_path: Path) -> None:
    path = example(tmp_path, "instant_distinct_options")
    run(path, "brief", "instant", "rin", "scout")
    with pytest.raises(MprError) as error:
        run(path, "brief", "instant", "kai", "scout")
    assert (error.value.code, error.value.message("ja").split("（")[0]) == ("MPR782", "scout は他のPCが選んでいます")
    assert run(path, "brief", "instant", "kai", "ready")["used"] == 1


def test_example_dawn_keeps_aces_in_campaign_dawn(tmp_path: Path) -> None:
    path = example(tmp_path, "dawn_keeps_aces")
    run(path, "dawn", seed=2)
    assert {"HA", "DA"} <= set(held(path)["lamp"]) and "C5" not in held(path)["lamp"]


@pytest.mark.parametrize("seed, cards, note", [(19, 2, "cards 2"), (1, 0, "cards 0")])
def test_example_storm_camp_in_campaign_rest(tmp_path: Path, seed: int, cards: int, note: str) -> None:
    path = example(tmp_path, "storm_camp")
    result = run(path, "rest", "camp", seed=seed)
    assert result["clock"] == "day 2 00:00"
    assert [len(c["out"]) for c in result["changes"][2:]] == ([cards, cards] if cards else [])
    assert [n["args"]["amount"] for n in result["notes"] if n["code"] == "MPR789"] == [cards]


CONSTRAINED = KEEP.format(slot="sleep", mode="after_minimum", keep="false", params=PARAMS["after_minimum"]) + \
    THRESHOLD + """\
inputs:
  type: object
  properties: {state: {type: object}, holder: {type: string}, hours: {type: number}}
constraints:
  - id: hand_limit
    check: "len(result.holders[holder]) <= 2"
    path: holder
    message: {ja: "{holder} は札を {len(result.holders[holder])} 枚持っています（2枚まで）", en: "{holder} holds {len(result.holders[holder])} cards (2 at most)"}
"""


@pytest.mark.parametrize("pc, code", [("kai", None), ("rin", "MPR780")])
def test_a_circulation_s_constraints_refuse_the_command(tmp_path: Path, pc: str, code: str | None) -> None:
    path = campaign(tmp_path, {"keep.yaml": CONSTRAINED}, {"sleep": "t.sleep"})
    before = Path(path).read_bytes()
    if code is None:
        assert {c["holder"] for c in run(path, "sleep", pc, 8, seed=3)["changes"]} == {pc}
        return
    with pytest.raises(MprError) as error:
        run(path, "sleep", pc, 8, seed=3)
    assert error.value.code == code and "rin は札を 3 枚持っています（2枚まで）" in error.value.message("ja")
    assert Path(path).read_bytes() == before
