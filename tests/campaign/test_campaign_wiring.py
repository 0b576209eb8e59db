"""The campaign's wiring is the manifest's ``campaign:`` section: a command runs the rule it names,
a missing entry is a coded error located in the manifest, a wrong or missing rule is a finding of
``validate``, and a variant inherits the wiring and may override it (house rule: dawn renews the
characters' cards too, shown through ``mprules campaign dawn`` and ``advance``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from campaign_support import CHARS, holders, make_campaign, make_ruleset
from interpreter.campaign import commands
from interpreter.cli import main
from interpreter.documents.resources import rulesets_dir
from interpreter.checks.loading import collect, load_ruleset
from rules_dsl.errors import MprError

WIRING = {"deck": "cards.deck", "sleep": "circulation.sleep", "dawn": "circulation.dawn",
          "special": "circulation.special", "rests": {"short": "rest.short", "long": "rest.long"},
          "briefings": {"instant": "briefing.instant"}}
HOUSE_DAWN = rulesets_dir() / "examples" / "house_rules" / "dawn_renews_characters"


def without(slot: str) -> dict:
    return {"campaign": {k: v for k, v in WIRING.items() if k != slot}}


# (slot left out, command, arguments): the command refuses with MPR770 naming campaign.<slot>
MISSING = [
    ("special", "circulate", ("alice",), {"take_all": True}),
    ("rests", "rest", ("short",), {}),
    ("briefings", "brief", ("instant", "alice", "x"), {}),
    ("sleep", "sleep", ("alice", 8), {}),
    ("dawn", "dawn", (), {}),
    ("dawn", "advance", (24 * 60,), {}),
]


@pytest.mark.parametrize("slot, command, args, kwargs", MISSING, ids=[f"{m[0]}-{m[1]}" for m in MISSING])
def test_a_command_whose_wiring_is_missing_is_a_coded_located_error(tmp_path, slot, command, args, kwargs):
    path = make_campaign(tmp_path, manifest=without(slot))
    with pytest.raises(MprError) as error:
        getattr(commands, command)(commands.Store.open(path), *args, seed=1, **kwargs)
    assert error.value.code == "MPR770"
    assert error.value.loc.path == f"campaign.{slot}"
    assert error.value.loc.file.endswith("ruleset.yaml")


def test_init_without_a_deck_in_the_wiring_is_refused(tmp_path):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS), encoding="utf-8")
    rules = make_ruleset(tmp_path / "rules", without("deck"))
    with pytest.raises(MprError) as error:
        commands.init(str(tmp_path / "c.db"), str(chars), ruleset=str(rules), seed=1)
    assert (error.value.code, error.value.loc.path) == ("MPR770", "campaign.deck")


def test_the_cli_names_the_manifest_and_exits_1(tmp_path, capsys):
    path = make_campaign(tmp_path, manifest=without("special"))
    assert main(["campaign", "circulate", path, "alice", "--all", "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert "MPR770" in err and "campaign.special" in err and "ruleset.yaml" in err


# (wiring, the validate findings)
FINDINGS = [
    ({**WIRING}, []),
    ({**WIRING, "special": "circulation.speshul"}, ["MPR771"]),
    ({**WIRING, "sleep": "rest.short"}, ["MPR772"]),
    ({**WIRING, "rests": {"short": "rest.short", "nap": "briefing.instant", "x": "nothing.here"}},
     ["MPR771"]),
    ({**WIRING, "deck": "circulation.dawn"}, ["MPR772"]),
]


@pytest.mark.parametrize("wiring, codes", FINDINGS)
def test_validate_checks_the_wiring(tmp_path, wiring, codes):
    rules = make_ruleset(tmp_path / "rules", {"campaign": wiring})
    _, findings = collect(rules)
    found = [d for d in findings if d.code.startswith("MPR77")]
    assert [d.code for d in found] == codes
    assert all(d.file and d.file.endswith("ruleset.yaml") and d.line for d in found)


def test_a_variant_inherits_the_wiring_and_overrides_an_entry(tmp_path):
    base = make_ruleset(tmp_path / "base", {"campaign": WIRING})
    variant = tmp_path / "variant"
    variant.mkdir()
    (variant / "ruleset.yaml").write_text(
        'id: v\nversion: "0.1.0"\ntitle: {en: v}\nextends: ../base\n'
        "campaign:\n  rests: {nap: rest.short}\n", encoding="utf-8")
    ruleset = load_ruleset(variant)
    assert ruleset.campaign["rests"] == {"short": "rest.short", "long": "rest.long", "nap": "rest.short"}
    assert ruleset.campaign["special"] == "circulation.special"
    assert base.exists()


def test_the_house_rule_variant_inherits_the_bundled_wiring():
    assert load_ruleset(HOUSE_DAWN).campaign == load_ruleset().campaign


@pytest.mark.parametrize("command, argv", [
    ("dawn", ["campaign", "dawn", "{f}", "--seed", "3", "--format", "json"]),
    ("advance", ["campaign", "advance", "{f}", "--minutes", "1440", "--seed", "3", "--format", "json"]),
])
def test_house_rule_dawn_renews_the_characters_cards_too(tmp_path, capsys, command, argv):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    path = str(tmp_path / "c.db")
    assert main(["campaign", "init", path, "--characters", str(chars), "--ruleset", str(HOUSE_DAWN),
                 "--seed", "1", "--format", "json"]) == 0
    before = json.loads(capsys.readouterr().out)["holders"]
    assert main([a.replace("{f}", path) for a in argv]) == 0
    result = json.loads(capsys.readouterr().out)
    renewed = [c["holder"] for c in result["changes"]]
    assert renewed == ["battery", "alice", "bob"]  # items first, then characters, as `renews` lists
    after = holders(path)
    for holder, cards in before.items():
        assert len(after[holder]) == len(cards) and not set(after[holder]) & set(cards)


def test_bundled_dawn_renews_items_only(tmp_path):
    path = make_campaign(tmp_path)
    before = holders(path)
    result = commands.dawn(commands.Store.open(path), seed=3)
    assert [c["holder"] for c in result["changes"]] == ["battery"]
    assert holders(path)["alice"] == before["alice"]


def test_every_house_rule_validates():
    # their examples run in tests/checks/test_examples_match.py (one run of the bundled rulesets)
    for variant in sorted((rulesets_dir() / "examples" / "house_rules").iterdir()):
        assert main(["validate", str(variant)]) == 0, variant


def test_a_replaced_rule_keeps_its_wiring(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text('id: v\nversion: "0.1.0"\ntitle: {en: v}\nextends: magipunk\n',
                                       encoding="utf-8")
    text = (rulesets_dir() / "magipunk" / "rest.yaml").read_text(encoding="utf-8").split("---")[1]
    (root / "nap.yaml").write_text("replaces: rest.short\n" + text.replace("id: rest.short", "id: rest.nap"),
                                   encoding="utf-8")
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS), encoding="utf-8")
    path = str(tmp_path / "c.db")
    commands.init(path, str(chars), ruleset=str(root), seed=1)
    assert commands.rest(commands.Store.open(path), "short", seed=1)["rule"] == "rest.nap"
    assert Path(path).exists()


def test_a_wired_rule_missing_from_the_ruleset_is_refused_when_used(tmp_path):
    path = make_campaign(tmp_path, manifest={"campaign": {**WIRING, "special": "circulation.speshul"}})
    with pytest.raises(MprError) as error:
        commands.circulate(commands.Store.open(path), "alice", take_all=True, seed=1)
    assert (error.value.code, error.value.loc.path) == ("MPR773", "campaign.special")


def test_house_rule_tense_allowance_counts_the_campaigns_characters(tmp_path):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump(CHARS, allow_unicode=True), encoding="utf-8")
    path = str(tmp_path / "c.db")
    variant = rulesets_dir() / "examples" / "house_rules" / "tense_per_pc"
    commands.init(path, str(chars), ruleset=str(variant), seed=1)
    results = [commands.brief(commands.Store.open(path), "tense", "alice", "o1") for _ in range(4)]
    assert [(r["used"], r["allowed"]) for r in results] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    with pytest.raises(MprError) as error:
        commands.brief(commands.Store.open(path), "tense", "alice", "o1")
    assert error.value.code == "MPR661"
