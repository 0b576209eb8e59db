"""Enumerations that became expressions: a Circulation's ``keep`` (an expression of one held card)
and a Package effect that runs a rule of the ruleset and takes its value as its amount; and the
findings of ``validate`` about them. Rulesets of their own over the bundled deck, scripted seeds."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from interpreter.checks.loading import collect, load_ruleset
from interpreter.documents.resources import bundled_ruleset
from interpreter.engine import runner as engine
from interpreter.solvers.circulation import card_value
from rules_dsl.dice import SeededDice
from rules_dsl.errors import MprError

DECK = {"suits": ["S", "H", "D", "C"], "ranks": ["A", 2, 3, 10, "J"], "jokers": ["JK1"]}


@pytest.mark.parametrize("card, value", [
    ("SA", {"id": "SA", "suit": "S", "rank": "A", "joker": False}),
    ("H10", {"id": "H10", "suit": "H", "rank": "10", "joker": False}),
    ("JK1", {"id": "JK1", "suit": None, "rank": None, "joker": True}),
    ("ZZ", {"id": "ZZ", "suit": None, "rank": None, "joker": False}),
])
def test_a_card_is_read_off_the_deck_s_parameters(card: str, value: dict) -> None:
    assert card_value(card, DECK) == value


STATE = {"type": "object", "properties": {"holders": {"type": "object"}, "deck": {"type": "array"},
                                           "discard": {"type": "array"}}}
SLEEP = {
    "id": "t.sleep", "kind": "Circulation", "circulation": "after_minimum", "deck": "cards.deck",
    "threshold": {"amount": "hours", "minimum": "min_sleep_hours", "short": "short_sleep"},
    "keep": "card.joker or (card.rank == '7' and holder != 'pc9')", "source": "house rule", "title": {"en": "sleep"},
    "inputs": {"type": "object", "properties": {"state": STATE, "holder": {"type": "string"},
                                                 "hours": {"type": "number"}}},
    "params": {"min_sleep_hours": 1},
}
CAMP = {
    "id": "t.camp", "kind": "Package", "source": "house rule", "title": {"en": "camp"},
    "effect_types": {"sleep": {"amount": "hours", "runs": "sleep", "minutes_per_unit": 60},
                     "storm": {"amount": "cards", "rule": "t.storm", "value": "result.value * params.scale",
                               "runs": "special"}},
    "params": {"duration_minutes": 240, "effects": [{"effect": "sleep", "hours": 3}, {"effect": "storm"}],
               "scale": 2},
    "param_schema": {"scale": {"type": "integer"}},
}
STORM = {
    "id": "t.storm", "kind": "RollTable", "source": "house rule", "title": {"en": "storm"},
    "params": {"roll": "1d6"},
    "rows": [{"roll": [1, 3], "id": "calm", "value": 0}, {"roll": [4, 6], "id": "storm", "value": 1}],
}


def _root(tmp: Path, *docs: dict[str, Any]) -> Path:
    manifest = {"id": "t", "version": "0.1.0", "title": {"en": "t"}, "extends": str(bundled_ruleset())}
    (tmp / "ruleset.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    (tmp / "docs.yaml").write_text(yaml.safe_dump_all(docs, allow_unicode=True), encoding="utf-8")
    return tmp


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _root(tmp_path_factory.mktemp("keep"), SLEEP, CAMP, STORM)


KEPT = [
    ("a joker and a lucky seven stay", ["SA", "JK1", "D7"], ["JK1", "D7"], True, None),
    ("nothing kept", ["SA", "H2"], [], True, None),
    ("every card kept", ["JK1", "C7"], ["JK1", "C7"], False, "kept"),
]


@pytest.mark.parametrize("name, held, stay, circulated, reason", KEPT, ids=[k[0] for k in KEPT])
def test_keep_names_the_cards_that_stay(root: Path, name: str, held: list, stay: list,
                                        circulated: bool, reason: str | None) -> None:
    value = engine.run(load_ruleset(root), "t.sleep", {"state": {"holders": {"pc1": held}},
                                                       "holder": "pc1", "hours": 8}, SeededDice(1)).value
    assert (value["circulated"], value["reason"]) == (circulated, reason)
    assert [c for c in value["holders"]["pc1"] if c in held] == stay
    assert len(value["holders"]["pc1"]) == len(held)
    assert sorted(value["discard"]) == sorted(set(held) - set(stay))


@pytest.mark.parametrize("seed, cards", [(1, 0), (5, 2)])
def test_an_effect_runs_a_rule_and_takes_its_value(root: Path, seed: int, cards: int) -> None:
    result = engine.run(load_ruleset(root), "t.camp", {}, SeededDice(seed))
    assert result.value == {"duration_minutes": 240,
                            "effects": [{"effect": "sleep", "hours": 3}, {"effect": "storm", "cards": cards}]}
    assert [step.label for step in result.trace[0].children if step.kind == "rule"] == ["t.storm"]


def _storm_with(given: dict) -> dict:
    """The camp whose storm effect gives the storm table an ``input``."""
    return {**CAMP, "effect_types": {**CAMP["effect_types"],
                                     "storm": {**CAMP["effect_types"]["storm"], "input": given}},
            "params": {**CAMP["params"], "wind": 3}, "param_schema": {"scale": {"type": "integer"},
                                                                      "wind": {"type": "integer"}}}


@pytest.mark.parametrize("given, cards, rolls", [
    ({"roll": 2}, 0, 0),                      # a number: the table reads roll 2 (calm)
    ({"roll": "params.wind + 1"}, 2, 0),      # an expression of params: 4 (storm) -> 1 * scale 2
    ({"roll": "min(1d6 + params.wind, 6)"}, 2, 1),  # dice rolled for it, traced
])
def test_an_effect_gives_its_rule_an_input(tmp_path: Path, given: dict, cards: int, rolls: int) -> None:
    root = _root(tmp_path, SLEEP, _storm_with(given), STORM)
    result = engine.run(load_ruleset(root), "t.camp", {}, SeededDice(1))
    assert result.value["effects"][1] == {"effect": "storm", "cards": cards}
    steps = [step for step in result.trace[0].children]
    given_steps = [s for s in steps if s.kind == "expr" and s.label.endswith("(storm) roll")]
    assert len(given_steps) == 1 and len(given_steps[0].detail.get("dice", [])) == rolls
    nested = [s for s in steps if s.kind == "rule"]
    assert [s.label for s in nested] == ["t.storm"]


def test_an_effect_input_the_rule_refuses_is_its_input_error(tmp_path: Path) -> None:
    root = _root(tmp_path, SLEEP, _storm_with({"roll": "'high'"}), STORM)
    with pytest.raises(MprError) as error:
        engine.run(load_ruleset(root), "t.camp", {}, SeededDice(1))
    assert error.value.code.startswith("MPR5")


FINDINGS = [
    ("an effect input uses a name it cannot see", None, {"roll": "result.value"}, "MPR061"),
    ("an effect input does not parse", None, {"roll": "1 +"}, "MPR1"),

    ("keep uses an unknown name", SLEEP, {"keep": "crad.joker"}, "MPR784"),
    ("keep does not parse", SLEEP, {"keep": "card.joker or"}, "MPR1"),
    ("the value of an effect uses an unknown name", CAMP,
     {"effect_types": {**CAMP["effect_types"], "storm": {**CAMP["effect_types"]["storm"], "value": "reslt.value"}}},
     "MPR787"),
    ("an effect runs a rule that is not there", CAMP,
     {"effect_types": {**CAMP["effect_types"], "storm": {**CAMP["effect_types"]["storm"], "rule": "t.stomr"}}},
     "MPR354"),
    ("a package parameter nobody declared", CAMP, {"param_schema": {}}, "MPR781"),
]


@pytest.mark.parametrize("name, doc, change, code", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_validate_reports(tmp_path: Path, name: str, doc: dict | None, change: dict, code: str) -> None:
    if doc is None:  # an effect's input
        doc, change = CAMP, _storm_with(change)
    others = [d for d in (SLEEP, CAMP, STORM) if d is not doc]
    _, findings = collect(_root(tmp_path, {**doc, **change}, *others))
    errors = [f for f in findings if f.severity == "error"]
    assert any(f.code.startswith(code) for f in errors), errors
    assert all(f.line is not None for f in errors)


def test_keep_must_say_true_or_false(tmp_path: Path) -> None:
    root = _root(tmp_path, {**SLEEP, "keep": "card.rank"}, CAMP, STORM)
    with pytest.raises(MprError) as error:
        engine.run(load_ruleset(root), "t.sleep", {"state": {"holders": {"pc1": ["SA"]}}, "holder": "pc1",
                                                   "hours": 8}, SeededDice(1))
    assert error.value.code == "MPR562"
