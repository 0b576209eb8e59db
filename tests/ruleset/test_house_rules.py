"""The house-rule examples written on the override format (rulesets/examples/house_rules/): each
changes what it says against the bundled ruleset, in a few lines and without a copied document."""
from __future__ import annotations

import json

import pytest
import yaml

from interpreter.checks.loading import collect, load_ruleset
from interpreter.cli import main
from interpreter.documents.resources import bundled_ruleset, rulesets_dir
from interpreter.engine import runner as engine
from rules_dsl.dice import ScriptedDice

HOUSE = rulesets_dir() / "examples" / "house_rules"
PAIR = [{"id": "アキラ", "region": "下町", "residence": "集合住宅", "facilities": ["工房"]},
        {"id": "ベル", "region": "下町", "residence": "集合住宅", "facilities": ["祭壇"]}]
FACILITIES = {"工房": {"shareable": True}, "祭壇": {"shareable": False}}
ITEM = {"materials": ["合金"], "quality": "標準"}

# (variant, rule, input, path into the value, the bundled answer, the variant's answer)
CHANGES = [
    ("challenge_at_least_one", "procurement.check", {"item": ITEM, "reputation_modifier": -3},
     ("challenge",), -2, 1),
    ("free_residence_not_shared", "cohabitation.setup",
     {"residents": PAIR, "costs": {"region": 1, "residence": 0}}, ("legal",), True, False),
    ("facility_life_points", "cohabitation.setup",
     {"residents": PAIR, "costs": {"region": 2, "residence": 3}, "facility_data": FACILITIES},
     ("life_points", "ベル", "total"), 3, 4),
    ("city_moves_up_first", "cohabitation.leisure",
     {"table": "city", "safety": 1, "residents": ["アキラ", "ベル"], "rolls": {"アキラ": 7, "ベル": 7}},
     ("results", 1, "final_roll"), 6, 8),
    ("wilderness_individual", "cohabitation.leisure",
     {"table": "wilderness", "safety": 1, "residents": ["アキラ", "ベル"], "rolls": {"アキラ": 2, "ベル": 2}},
     ("results", 1, "how"), "adjusted", "individual"),
    ("nap_rest", "rest.nap", {}, ("duration_minutes",), None, 30),
]


def answer(root, rule, given, path):
    ruleset = load_ruleset(root)
    if rule not in ruleset.rules:
        return None
    value = engine.run(ruleset, rule, given, ScriptedDice([])).value
    for key in path:
        value = value[key]
    return value


@pytest.mark.parametrize("name, rule, given, path, bundled, house", CHANGES, ids=[c[0] for c in CHANGES])
def test_each_house_rule_changes_what_it_says(name, rule, given, path, bundled, house):
    root = HOUSE / name
    assert [d for d in collect(root)[1] if d.severity in ("error", "warning")] == []
    assert answer(bundled_ruleset(), rule, given, path) == bundled
    assert answer(root, rule, given, path) == house
    written = [p.name for p in root.iterdir() if p.suffix == ".yaml"]
    assert set(written) <= {"ruleset.yaml", "nap.yaml"}  # no copied document


def test_the_nap_is_a_campaign_rest(tmp_path, capsys):
    chars = tmp_path / "chars.yaml"
    chars.write_text(yaml.safe_dump({"characters": [{"id": "alice", "hand_size": 2}]}), encoding="utf-8")
    path = str(tmp_path / "c.db")
    assert main(["campaign", "init", path, "--characters", str(chars), "--ruleset", str(HOUSE / "nap_rest"),
                 "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["campaign", "rest", path, "nap", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["rule"] == "rest.nap"


def test_a_replaced_rule_runs_by_its_old_id(tmp_path, capsys):
    """A GM who replaces the leisure document under a new id still runs it by the old one."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text('id: v\nversion: "0.1.0"\ntitle: {en: v}\nextends: magipunk\n',
                                       encoding="utf-8")
    (root / "leisure.yaml").write_text(
        "id: my.leisure\nreplaces: cohabitation.leisure\nbased_on: cohabitation.leisure\n"
        "title: {ja: 余暇（私の卓）, en: Leisure (my table)}\nrepeat: {once: params.shared_tag in tags, move: 'off', fallback: individual}\n",
        encoding="utf-8")
    given = tmp_path / "in.yaml"
    given.write_text("{table: city, safety: 1, residents: [a, b], rolls: {a: 7, b: 7}}\n", encoding="utf-8")
    assert main(["run", "cohabitation.leisure", "--ruleset", str(root), "--input", str(given),
                 "--format", "json"]) == 0
    value = json.loads(capsys.readouterr().out)["value"]
    assert value["results"][1]["how"] == "individual"
    assert main(["validate", str(root)]) == 0
    assert "MPR923" in capsys.readouterr().out + capsys.readouterr().err
