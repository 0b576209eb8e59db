"""``mprules diff``: rules added, removed and not adopted, changed parameters and rows, and the exact
probabilities that move, checked against probabilities computed by hand."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from interpreter.cli import main
from interpreter.reports.diff import compare
from interpreter.reports.diff_render import render_markdown, render_text
from interpreter.documents.resources import rulesets_dir
from interpreter.checks.loading import load_ruleset

BASE = rulesets_dir() / "magipunk"
EXAMPLES = rulesets_dir() / "examples"


def core(n: int, m: int, x: int) -> dict[str, Fraction]:
    """By hand (the core check, m >= x >= 2): n d20 against m with challenge x. A die equal to m is a
    jackpot; all ones a bad beat; otherwise any die in [x, m] is a success."""
    d = Fraction(1, 20)
    no_m = (1 - d) ** n
    fail_faces = (x - 1) + (20 - m)  # 1..x-1 and m+1..20
    return {"JP": 1 - no_m, "success": no_m - (fail_faces * d) ** n,
            "failure": (fail_faces * d) ** n - d ** n, "BB": d ** n}


@pytest.fixture(scope="module")
def strict():
    return compare(load_ruleset(BASE), load_ruleset(EXAMPLES / "strict_procurement")).to_json()


def probe(diff: dict, rule: str, name_part: str) -> dict:
    (entry,) = [p for p in diff["probabilities"] if p["rule"] == rule and name_part in p["probe"]]
    return entry


def test_strict_procurement_parameters_and_rows(strict):
    changes = {c["rule"]: c for c in strict["changes"]}
    assert set(changes) == {"procurement.check", "procurement.rarity"}
    assert changes["procurement.check"]["params"] == [
        {"name": "time_dice_cap", "old": 2, "new": 1, "layer": "strict_procurement"}]
    rarity = changes["procurement.rarity"]
    assert [(p["name"], "強化結晶" in p["old"], "強化結晶" in p["new"]) for p in rarity["params"]] == [
        ("materials_1", True, False), ("materials_2", False, True)]
    one, two, row = rarity["rows"]
    assert (row["row"], row["change"], row["old"], row["new"]["value"]) == ("many_materials", "added", None, 1)
    assert [(r["row"], r["change"], "強化結晶" in r["old"]["label"]["ja"], "強化結晶" in r["new"]["label"]["ja"])
            for r in (one, two)] == [("material_1", "changed", True, False), ("material_2", "changed", False, True)]
    assert strict["rules"] == {"added": [], "removed": [], "not_adopted": [], "adopted": []}


@pytest.mark.parametrize("name_part, old, new", [
    # a masterpiece steel sword: rarity 3 on both sides; time gives 2 dice, then 1 (3 d20 -> 2 d20)
    ("〈鋼〉の傑作", core(3, 12, 3), core(2, 12, 3)),
    # 〈強化結晶〉 of fine quality: rarity 1+1 = 2 -> 2+1 = 3, and 3 d20 -> 2 d20
    ("〈強化結晶〉の上質", core(3, 12, 2), core(2, 12, 3)),
])
def test_procurement_check_probabilities_match_the_hand_computation(strict, name_part, old, new):
    (table,) = probe(strict, "procurement.check", name_part)["tables"]
    got = {r["value"]: (Fraction(r["old"]["p"]), Fraction(r["new"]["p"])) for r in table["rows"]}
    assert got == {k: (old[k], new[k]) for k in old}
    assert old["success"] + old["JP"] in (Fraction(7, 8), Fraction(7271, 8000))
    assert new["success"] + new["JP"] == Fraction(3, 4)


@pytest.mark.parametrize("name_part, old, new", [("〈強化結晶〉の上質", 2, 3), ("〈魔煌銀〉〈合金〉〈鋼〉", 9, 10)])
def test_rarity_values_that_move(strict, name_part, old, new):
    entry = probe(strict, "procurement.rarity", name_part)
    assert (entry["type"], entry["old"], entry["new"]) == ("value", old, new)


def test_long_rest_sleep_and_briefing_options():
    sleep = compare(load_ruleset(BASE), load_ruleset(EXAMPLES / "long_rest_sleep")).to_json()
    assert {c["rule"]: [(p["name"], p["old"], p["new"]) for p in c["params"]] for c in sleep["changes"]} == {
        "circulation.sleep": [("min_sleep_hours", 1, 4)],
        "rest.long": [("effects", [], [{"effect": "sleep", "hours": 8}])]}
    assert not any(p["type"] == "distribution" for p in sleep["probabilities"])
    briefing = compare(load_ruleset(BASE), load_ruleset(EXAMPLES / "briefing_options")).to_json()
    tense = next(c for c in briefing["changes"] if c["rule"] == "briefing.tense")
    assert ("allowance", 6, 4) in [(p["name"], p["old"], p["new"]) for p in tense["params"]]


CITY = "cohabitation.leisure.city"


def test_a_moved_roll_table_row(tmp_path):
    """Light burglary moved from 7 to 8 on the city table (2d6): 6/36 -> 5/36; roll 7 becomes an
    individual event (6/36 more), and the rows of 7 and 8 trade places."""
    root = tmp_path / "safer"
    root.mkdir()
    (root / "ruleset.yaml").write_text(
        'id: safer\nversion: "0.1.0"\ntitle: {ja: 安全な街}\nextends: magipunk\n'
        "overrides:\n  cohabitation.leisure.city:\n    rows:\n"
        "      - {id: burglary_light, roll: 8, tags: [shared], text: {ja: 空き巣（軽微）}}\n",
        encoding="utf-8")
    diff = compare(load_ruleset(BASE), load_ruleset(root)).to_json()
    (change,) = diff["changes"]
    assert change["rule"] == CITY and change["rows"][0]["change"] == "changed"
    entry = probe(diff, CITY, "default")
    events = {r["value"]: (Fraction(r["old"]["p"]), Fraction(r["new"]["p"]))
              for r in entry["tables"][1]["rows"]}
    assert events["burglary_light"] == (Fraction(6, 36), Fraction(5, 36))
    assert events["burglary_heavy"] == (Fraction(3, 36), Fraction(3, 36))
    text = render_text(compare(load_ruleset(BASE), load_ruleset(root)))
    assert "16.67% ->  13.89%  (-2.78)  1/6 -> 5/36" in text


def test_safer_city_leisure_moves_by_hand():
    """Without the row at 4 a city roll (2d6) is individual 24/36 instead of 21/36, so two
    cohabitants get no shared event (7/12)^2 -> (2/3)^2; the first resident's heavy burglary 1/12 -> 0."""
    diff = compare(load_ruleset(BASE), load_ruleset(EXAMPLES / "safer_city")).to_json()
    leisure = probe(diff, "cohabitation.leisure", "治安2")
    sets = {tuple(r["value"]): (Fraction(r["old"]["p"]), Fraction(r["new"]["p"]))
            for r in leisure["tables"][0]["rows"]}
    assert sets[()] == (Fraction(7, 12) ** 2, Fraction(2, 3) ** 2)
    assert sets[("burglary_heavy",)][1] == 0
    first = {r["value"]: (Fraction(r["old"]["p"]), Fraction(r["new"]["p"]))
             for r in leisure["tables"][2]["rows"]}
    assert first["burglary_heavy"] == (Fraction(1, 12), 0) and first[None] == (Fraction(7, 12), Fraction(2, 3))
    changes = {c["rule"]: c for c in diff["changes"]}
    assert changes["cohabitation.leisure"]["params"][0]["new"] == "safety + 1"
    assert changes["cohabitation.leisure.city"]["rows"][0]["change"] == "removed"


def test_added_removed_and_not_adopted(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text(
        'id: v\nversion: "0.1.0"\ntitle: {en: v}\nextends: magipunk\nnot_adopted: [combat.cover]\n',
        encoding="utf-8")
    text = (BASE / "rest.yaml").read_text(encoding="utf-8").split("---")[1]
    (root / "nap.yaml").write_text("replaces: rest.short\n" + text.replace("id: rest.short", "id: rest.nap"),
                                   encoding="utf-8")
    diff = compare(load_ruleset(BASE), load_ruleset(root)).to_json()
    # the replacing document answers to the id it replaces: rest.short changed, nothing added or removed
    assert diff["rules"]["added"] == [] and diff["rules"]["removed"] == []
    [change] = [c for c in diff["changes"] if c["rule"] == "rest.short"]
    assert change["replaced"] and change["replaced_by"]["rule"] == "rest.nap"
    assert change["replaced_by"]["layer"] == "v"
    assert [e["rule"] for e in diff["rules"]["not_adopted"]] == ["combat.cover"]


@pytest.mark.parametrize("fmt, needle", [
    ("text", "time_dice_cap: 2 -> 1  [strict_procurement]"),
    ("markdown", "- **procurement.check"),
    ("json", '"time_dice_cap"'),
])
def test_cli_formats(capsys, fmt, needle):
    code = main(["diff", str(BASE), str(EXAMPLES / "strict_procurement"), "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0 and needle in out
    if fmt == "json":
        data = json.loads(out)
        assert list(data) == ["base", "variant", "parameters", "rules", "changes", "campaign", "probabilities",
                              "warnings"]


def test_markdown_tables_show_the_moved_percentages():
    md = render_markdown(compare(load_ruleset(BASE), load_ruleset(EXAMPLES / "strict_procurement"), "ja"))
    assert "| 成功 | 73.24% | 65.25% | -7.99 |" in md
    assert md.startswith("## magipunk → strict_procurement")


def test_cli_refuses_a_missing_ruleset(tmp_path, capsys):
    code = main(["diff", str(BASE), str(tmp_path / "nowhere")])
    assert code == 3 and "MPR414" in capsys.readouterr().err  # the variant does not exist


def test_a_probe_a_side_refuses_is_a_warning(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text(
        'id: v\nversion: "0.1.0"\ntitle: {en: v}\nextends: magipunk\noverrides:\n'
        "  procurement.check:\n    probes: [{name: no item, input: {intellect: 12}}]\n", encoding="utf-8")
    diff = compare(load_ruleset(BASE), load_ruleset(root))
    assert [(w.code, w.severity) for w in diff.warnings] == [("MPR950", "warning")] * 2
    assert diff.probabilities == [] and "MPR950" in render_text(diff)


def test_identical_rulesets_have_no_changes():
    diff = compare(load_ruleset(BASE), load_ruleset(BASE)).to_json()
    assert diff["changes"] == [] and diff["probabilities"] == [] and diff["parameters"] == []


SAFER = ('id: safer\nversion: "0.1.0"\ntitle: {ja: 安全な街}\nextends: magipunk\n'
         "overrides:\n  cohabitation.leisure.city:\n    rows:\n"
         "      - {id: burglary_light, roll: 8, tags: [shared], text: {ja: 空き巣（軽微）}}\n")


@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "past it"])
def test_odds_of_more_outcomes_than_the_bound_are_not_compared(tmp_path, monkeypatch, past):
    """A probe whose tables would hold more than ``MAX_DIFF_OUTCOMES`` outcomes on both sides is
    a warning (MPR952), never computed row by row: known from the rules' rows before the odds are
    made, else from the odds' rows."""
    from interpreter.reports import diff as diff_report

    root = tmp_path / "safer"
    root.mkdir()
    (root / "ruleset.yaml").write_text(SAFER, encoding="utf-8")
    base, variant = load_ruleset(BASE), load_ruleset(root)
    rows = sum(len(r.doc["rows"]) for r in (base.rule(CITY), variant.rule(CITY)))
    entry = probe(compare(base, variant).to_json(), CITY, "default")
    outcomes = 2 * sum(len(t["rows"]) for t in entry["tables"])  # both sides have every outcome
    for limit, warned in ((max(rows, outcomes), False), (rows - 1, True), (outcomes - 1, True)):
        if not past and warned:
            continue
        monkeypatch.setattr(diff_report, "MAX_DIFF_OUTCOMES", limit)
        diff = compare(base, variant).to_json()
        codes = [w["code"] for w in diff["warnings"] if CITY in w["message"]]
        assert ("MPR952" in codes) is warned, (limit, codes)
        assert any(p["rule"] == CITY for p in diff["probabilities"]) is not warned


def test_comparing_two_rulesets_writes_no_ruleset_entry(tmp_path, monkeypatch, capsys):
    """diff and doc hold two rulesets at once: they read the ruleset cache but write no entry
    (its memory would come on top of theirs); run writes it as before."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MPRULES_CACHE_DIR", str(cache))
    monkeypatch.delenv("MPRULES_NO_CACHE", raising=False)
    root = tmp_path / "safer"
    root.mkdir()
    (root / "ruleset.yaml").write_text(SAFER, encoding="utf-8")

    def entries() -> list:
        return [p for p in cache.glob("*.bin") if len(p.stem) == 64]

    assert main(["diff", str(BASE), str(root)]) == 0
    assert main(["doc", str(root)]) == 0
    assert entries() == []
    assert main(["run", CITY, "--ruleset", str(root), "--seed", "1"]) == 0
    assert len(entries()) == 1
    capsys.readouterr()
