"""The engine names no rule: no module under ``interpreter/`` or ``rules_dsl/`` holds a rule id of
the bundled rulesets or a term of the game (in code, strings, comments or docstrings). What makes
a rule *this* rule is in its YAML document; the Python knows mechanisms only.

The command-line verbs fixed by the project's contract (``campaign sleep``, ``dawn``, ``rest``,
``brief`` and the briefing it records in the campaign file, the core check's ``nMPmCx`` notation)
are the only game words the code may say, and they are not listed here."""
from __future__ import annotations

import functools
import re
import sys
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


@functools.cache
def _rule_ids() -> frozenset[str]:
    """The ids of the bundled rules (read once: YAML is slow, and every case needs them)."""
    ids: set[str] = set()
    for path in (ROOT / "rulesets" / "magipunk").glob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and isinstance(doc.get("id"), str) and "." in doc["id"]:
                ids.add(doc["id"])
    return frozenset(ids)


@functools.cache
def _id_pattern(rule_ids: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(rule_ids, key=len, reverse=True)))
                      + r")(?![\w])")


def _findings(path: Path, rule_ids: frozenset[str]) -> list[str]:
    found = []
    ids = _id_pattern(rule_ids)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{number}"
        for match in ids.finditer(line):
            found.append(f"{where}: rule id {match.group(0)}: {line.strip()}")
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


@pytest.mark.parametrize("line, found", [
    ('key = "procurement.rarity"', ["procurement.rarity"]),
    ("x.procurement.rarity", []),            # part of a longer dotted name
    ("procurement.rarity_table", []),        # part of a longer word
    ("a = ('rest.short', 'rest.long')", ["rest.short", "rest.long"]),
])
def test_a_rule_id_in_code_is_found(line: str, found: list[str], tmp_path: Path, monkeypatch) -> None:
    rule_ids = _rule_ids()  # read from the real checkout, before ROOT points elsewhere
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "m.py"
    path.write_text(line + "\n", encoding="utf-8")
    ids = [f.split(": rule id ")[1].split(":")[0] for f in _findings(path, rule_ids) if ": rule id " in f]
    assert ids == found


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rule_id_or_game_term_in_code(path):
    assert _findings(path, _rule_ids()) == []
