"""The reading of a campaign's state by its quicker ways gives what the plain ways give, value for
value and error for error: JSON by json's C scanner alone (``integrity.loads``), the deck in one
row SQLite joins (``integrity._deck``, else row by row), the cards checked in sets
(``_every_card_once``, else ``invariant_problems``)."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from campaign_support import make_campaign
from interpreter.campaign import integrity
from interpreter.campaign.store import Store
from interpreter.solvers.cards import DeckState, invariant_problems
from rules_dsl.errors import MprError

TEXTS = ['{}', '[]', '{"a": 1, "b": [1.5, -2e10, "x\\u00e9\\ud83d\\ude00", null, true, false]}', 'NaN',
         '-Infinity', '1' * 5000, '{"a":1} ', ' {"a":1}', '\t[1]', '{"a":1}x', '', '\ufeff{}', '"\\ud800"',
         '[1,]', '{"a" 1}', '12', '-0', '1e400', '"a\\tb"', '"a\tb"', b'{}', b'\xff', 5, None,
         '{"a":1,"a":2}', '[' * 50 + ']' * 50, '{"é": "日本語"}', '[1, 2', 'tru', '"\\x"']


def _outcome(read, text):
    try:
        value = read(text)
    except Exception as error:  # noqa: BLE001 - the kind of error is what is compared
        return "error", type(error).__name__
    return "value", json.dumps(value, sort_keys=True), repr(value)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_loads_is_json_loads(text) -> None:
    assert _outcome(integrity.loads, text) == _outcome(json.loads, text)


def test_loads_is_json_loads_before_json_is_imported() -> None:
    """In a process that never loaded the json package, a text json refuses is refused with
    json's own error (json's C scanner, alone, cannot make its error without json.decoder)."""
    script = (
        "import sys\n"
        "from interpreter.campaign import integrity\n"
        "assert 'json.decoder' not in sys.modules\n"
        f"for text in {TEXTS!r}:\n"
        "    for name in [m for m in sys.modules if m == 'json' or m.startswith('json.')]:\n"
        "        del sys.modules[name]  # as if json was never loaded, before each text\n"
        "    try:\n"
        "        integrity.loads(text)\n"
        "    except ValueError as error:\n"
        "        print(type(error).__name__, error)\n"
        "    except TypeError as error:\n"
        "        print('TypeError')\n"
        "    else:\n"
        "        print('value')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    expected = []
    for text in TEXTS:
        try:
            json.loads(text)  # type: ignore[arg-type]
        except ValueError as error:
            expected.append(f"{type(error).__name__} {error}")
        except TypeError:
            expected.append("TypeError")
        else:
            expected.append("value")
    assert done.stdout.splitlines() == expected and any(e.startswith("JSONDecodeError") for e in expected)


def _sql(path: str, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()


DECK = "(SELECT card FROM cards WHERE place = 'deck' ORDER BY position LIMIT 1)"
# Edits of the cards table, each read both ways: (name, SQL, the code the reading gives or None)
EDITS = [
    ("as written", "", None),
    ("two deck cards swapped in position",
     "UPDATE cards SET position = CASE position WHEN 0 THEN 1 ELSE 0 END WHERE place = 'deck' AND position < 2;",
     None),
    ("a position twice", "UPDATE cards SET position = 0 WHERE place = 'deck' AND position = 1;", None),
    ("positions from 1", "UPDATE cards SET position = position + 1 WHERE place = 'deck';", None),
    ("a position as text", f"UPDATE cards SET position = 'x' WHERE card = {DECK};", None),
    ("a card as a number (stored as text)", f"UPDATE cards SET card = 5 WHERE card = {DECK};", "MPR627"),
    ("a card as bytes", f"UPDATE cards SET card = x'4441' WHERE card = {DECK};", "MPR620"),
    ("a card with a line break", f"UPDATE cards SET card = card || char(10) || 'x' WHERE card = {DECK};", "MPR627"),
    ("a deck card with a holder",
     f"PRAGMA ignore_check_constraints = 1; UPDATE cards SET holder = 'alice' WHERE card = {DECK};", None),
    ("a card in an unknown place",
     f"PRAGMA ignore_check_constraints = 1; UPDATE cards SET place = 'Deck' WHERE card = {DECK};", "MPR627"),
    ("a held card of no one", "UPDATE cards SET holder = 'nobody' WHERE place = 'held' AND holder = 'bob';",
     "MPR620"),
    ("the deck empty", "UPDATE cards SET place = 'discard', position = position + 1000 WHERE place = 'deck';",
     None),
    ("rows written in another order",
     "CREATE TEMP TABLE t AS SELECT * FROM cards ORDER BY place DESC, position DESC; DELETE FROM cards; "
     "INSERT INTO cards SELECT * FROM t;", None),
]


def _read(path: str):
    try:
        with Store.open(path, readonly=True) as store:
            return "state", store.load().dump()
    except MprError as error:
        return "error", error.code, str(error)


@pytest.mark.parametrize("name, sql, code", EDITS, ids=[e[0] for e in EDITS])
def test_the_deck_in_one_row_reads_as_row_by_row(tmp_path, monkeypatch, name, sql, code) -> None:
    path = make_campaign(tmp_path, seed=2)
    _sql(path, sql)
    quick = _read(path)
    with monkeypatch.context() as patch:
        patch.setattr(integrity, "_deck", lambda c: None)  # every card row by row, as before
        plain = _read(path)
    assert quick == plain
    assert quick[0] == ("state" if code is None else "error") and (code is None or quick[1] == code)


DECKS = [  # (where the cards are, the composition)
    (DeckState(("A", "B"), ("C",), (("p", ("D",)),)), ("A", "B", "C", "D")),
    (DeckState(("A", "B"), ("C",), ()), ("A", "B", "C", "D")),
    (DeckState(("A", "B", "C", "D", "E"), (), ()), ("A", "B", "C", "D")),
    (DeckState(("A", "A", "C"), (), (("p", ("D",)),)), ("A", "B", "C", "D")),
    (DeckState(("J", "J", "A"), (), ()), ("J", "A", "J")),
    (DeckState(("J", "A"), (), (("p", ("J",)),)), ("J", "A", "J")),
    (DeckState((), (), ()), ()),
    (DeckState(("X",), (), ()), ("Y",)),
]


@pytest.mark.parametrize("cards, composition", DECKS)
def test_the_cards_in_sets_decide_only_what_the_counts_decide(cards, composition) -> None:
    from interpreter.solvers.cards import DeckSpec

    whole = invariant_problems(cards, DeckSpec(composition)) == ([], [])
    once = integrity._every_card_once(cards, composition)
    assert not once or whole
    assert once == (whole and len(set(composition)) == len(composition))
