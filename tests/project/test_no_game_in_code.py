"""The engine names no rule: no module under ``interpreter/`` or ``rules_dsl/`` holds a rule id of
the bundled rulesets or a term of the game (in code, strings, comments or docstrings). What makes
a rule *this* rule is in its YAML document; the Python knows mechanisms only.

The command-line verbs fixed by the project's contract (``campaign sleep``, ``dawn``, ``rest``,
``brief`` and the briefing it records in the campaign file, the core check's ``nMPmCx`` notation)
are the only game words the code may say, and they are not listed here."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CODE = sorted(p for package in ("interpreter", "rules_dsl") for p in (ROOT / package).rglob("*.py"))

# Terms of the game, in the words the rulebook and its players use (English spellings as the
# documents' keys write them, and Japanese).
TERMS = [
    r"rarit(y|ies)", r"procurement", r"cohabit\w*", r"residences?", r"leisure",
    r"jackpot", r"bad[ _-]?beat", r"ma[_-]?gear", r"magic[ _-]?cards?", r"magic[ _-]?slots?",
    r"intellect", r"stampede", r"reputation", r"spells?", r"Mj", r"life[ _]points?",
    r"hold(ing)?[ _-]back", r"public[ _]safety",
    "魔煌", "生活ポイント", "希少度", "同居", "余暇", "調達", "治安", "知性", "身体", "感覚", "魔力",
    "リビルド", "ジャックポット", "バッドビート", "手加減", "かばう", "魔法",
]
TERM = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(TERMS) + r")(?![A-Za-z0-9_])", re.IGNORECASE)


def _rule_ids() -> set[str]:
    ids: set[str] = set()
    for path in (ROOT / "rulesets" / "magipunk").glob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and isinstance(doc.get("id"), str) and "." in doc["id"]:
                ids.add(doc["id"])
    return ids


def _findings(path: Path, rule_ids: set[str]) -> list[str]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{number}"
        for rule_id in rule_ids:
            if re.search(rf"(?<![\w.]){re.escape(rule_id)}(?![\w])", line):
                found.append(f"{where}: rule id {rule_id}: {line.strip()}")
        match = TERM.search(line)
        if match:
            found.append(f"{where}: game term {match.group(0)!r}: {line.strip()}")
    return found


def test_the_term_list_finds_what_it_should():
    samples = ["rarity = 1", "the Ma-GEAR parts", "a bad beat", "魔煌札", "cohabitants",
               "procurement.rarity"]
    assert all(TERM.search(s) for s in samples)
    assert not TERM.search("the rest of the rows; a sleep of hours; resident_count")


def test_the_bundled_rule_ids_are_known():
    assert len(_rule_ids()) > 10


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rule_id_or_game_term_in_code(path):
    assert _findings(path, _rule_ids()) == []
