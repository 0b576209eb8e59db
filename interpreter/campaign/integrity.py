"""What a campaign file must hold to be trusted: its tables exactly as mprules made them (no
trigger, view, index or changed table of anyone else), every stored value of the right type, every
card held by a holder that exists, and the cards adding up to the deck. Anything else is refused
with MPR620 (exit 3) saying what is wrong, for reading and writing commands alike."""
from __future__ import annotations

from rules_dsl.errors import EXIT_STATE, Location, MprError, define

from interpreter.solvers.cards import DeckState, invariant_problems
from interpreter.campaign.files import NOT_SQLITE, sqlite3
from interpreter.campaign.delta import is_patch
from interpreter.campaign.pin import with_manifest_wiring
from interpreter.campaign.state import Entry, Holder, Pin, State

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable, Iterable

STATE_BROKEN = define(
    "MPR627", "{file}: the cards do not add up to the deck (missing {missing}, extra {extra}); nothing was changed",
    "{file}: カードが山札の構成と一致しません（不足 {missing}、余分 {extra}）。何も変更していません",
    exit_code=EXIT_STATE)

WIRING_KEY = "@wiring"  # in the pin's parameters column: the manifest's campaign wiring and its file

SCHEMA_QUERY = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"


def damaged(path: str, detail: str) -> MprError:
    return MprError(NOT_SQLITE, Location(path), file=path, detail=detail)


def _normal(sql: str | None) -> str:
    return " ".join((sql or "").split())


VERSION_TABLE = "CREATE TABLE schema_version (version INTEGER PRIMARY KEY)"  # made before any migration


_EXPECTED: dict[tuple[tuple[int, str], ...], tuple[tuple[str, str, str], ...]] = {}


def _expected(migrations: tuple[tuple[int, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """The objects the migrations make (``_made``), worked out once per process."""
    found = _EXPECTED.get(migrations)
    if found is None:
        found = _EXPECTED[migrations] = _made(migrations)
    return found


def _made(migrations: tuple[tuple[int, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """``(type, name, sql)`` of every object the migrations make, as ``SCHEMA_QUERY`` lists them.
    SQLite keeps the text of each ``CREATE TABLE`` as it was written, so tables are read off the
    scripts (no database built for it: a tenth of the cost); any other statement is run in memory."""
    made = [("table", "schema_version", _normal(VERSION_TABLE))]
    for _, script in migrations:
        for statement in filter(str.strip, script.split(";")):
            words = statement.split(None, 3)
            if words[:2] != ["CREATE", "TABLE"] or "(" not in statement:
                return made_in_memory(migrations)
            made.append(("table", words[2].partition("(")[0], _normal(statement)))
    return tuple(sorted(made))


def made_in_memory(migrations: tuple[tuple[int, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """What SQLite itself lists after running the migrations on an empty database."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(VERSION_TABLE)
        for _, script in migrations:
            for statement in filter(str.strip, script.split(";")):
                conn.execute(statement)
        return tuple((t, n, _normal(s)) for t, n, s in conn.execute(SCHEMA_QUERY))
    finally:
        conn.close()


def check_schema(conn: sqlite3.Connection, path: str, migrations: Iterable[tuple[int, str]]) -> None:
    """Refuse a file whose tables are not exactly the ones mprules makes (a dropped or changed
    table, an added trigger, view or index: none of them is ever trusted)."""
    try:
        actual = {(t, n): _normal(s) for t, n, s in conn.execute(SCHEMA_QUERY)}
    except sqlite3.Error as exc:
        raise damaged(path, str(exc)) from None
    expected = {(t, n): s for t, n, s in _expected(tuple(migrations))}
    for key, sql in expected.items():
        if key not in actual:
            raise damaged(path, f"the {key[0]} {key[1]} is missing")
        if actual[key] != sql:
            raise damaged(path, f"the {key[0]} {key[1]} was changed")
    for kind, name in actual:
        if (kind, name) not in expected:
            raise damaged(path, f"a {kind} {name} that mprules never makes")


try:  # start-up: json's own C scanner, without the json package (whose decoder loads and compiles re)
    from _json import make_scanner as _make_scanner
except ImportError:  # a Python without it: json.loads every time
    _make_scanner = None  # type: ignore[misc, assignment]


class _Decoding:
    """What json's C scanner reads of a decoder: ``json.JSONDecoder()``'s own defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan = None if _make_scanner is None else _make_scanner(_Decoding)  # type: ignore[arg-type]
_NOT_FIRST = frozenset(" \t\n\r\ufeff")  # what json.loads skips or refuses before a value


def loads(text: Any) -> Any:
    """``json.loads(text)``: the same value, or the same error. A text that starts with its value
    and ends with it is scanned by the very scanner ``json.loads`` calls, at the same place (so
    the same value); anything else (another type, white space around, no value, an error of any
    kind) is given to ``json.loads`` itself, which raises its error as it words it."""
    if _scan is not None and type(text) is str and text and text[0] not in _NOT_FIRST:
        try:
            value, end = _scan(text, 0)
        except Exception:  # noqa: BLE001 - json.loads below gives the error as json words it
            # (the scanner's own error needs json.decoder loaded: without it, a SystemError)
            pass
        else:
            if end == len(text):
                return value
    # start-up: json only for a text json's scanner alone does not decide
    import json

    return json.loads(text)


def parse_json(text: Any, path: str, where: str, shape: type | tuple[type, ...] = dict) -> Any:
    """A JSON value stored by mprules, of the given type; anything else is a damaged file."""
    try:
        value = loads(text)
    except (TypeError, ValueError):
        raise damaged(path, f"{where} is not valid JSON") from None
    if not isinstance(value, shape):
        raise damaged(path, f"{where} is not a {_names(shape)}")
    return value


def whole(value: Any, path: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise damaged(path, f"{where} is {value!r}, not a whole number")
    return value


def text(value: Any, path: str, where: str) -> str:
    """``value`` when it is text; else the store is damaged."""
    if isinstance(value, str):
        return value
    raise damaged(path, f"{where} is {value!r}, not text")


def optional_text(value: Any, path: str, where: str) -> str | None:
    """``value`` when it is text or None; else the store is damaged."""
    return None if value is None else text(value, path, where)


def _names(shape: type | tuple[type, ...]) -> str:
    kinds = shape if isinstance(shape, tuple) else (shape,)
    names = {dict: "mapping", list: "list", str: "text", int: "number"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def read_state(conn: sqlite3.Connection, path: str) -> tuple[State, bool, str]:
    """The state as stored, every value checked; whether the tables hold exactly it (not when a
    pin made before campaigns kept the wiring got it from its manifest); and the JSON text of the
    pin's rules as stored. ``MprError`` MPR620 (damaged) or MPR627 (the cards do not add up) when
    the file cannot be trusted."""
    try:
        return _read(conn, path)
    except sqlite3.Error as exc:
        raise damaged(path, describe(conn, exc)) from None


def describe(conn: sqlite3.Connection, exc: sqlite3.Error) -> str:
    """What SQLite said, and for text that is not UTF-8 (which SQLite stores as it was given),
    the table, row and column that hold it."""
    if "decode" not in str(exc):
        return str(exc)
    where = undecodable(conn)
    return f"{where} is not UTF-8 text" if where else str(exc)


def undecodable(conn: sqlite3.Connection) -> str | None:
    """The first ``table row N, column C`` whose text is not UTF-8 (``None``: none is found)."""
    try:
        tables = {name: [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
                  for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                              "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()}
    except sqlite3.Error:
        return None
    factory = conn.text_factory
    conn.text_factory = bytes
    try:
        for table, columns in tables.items():
            for row in conn.execute(f'SELECT rowid, * FROM "{table}"'):
                for column, value in zip(columns, row[1:]):
                    if isinstance(value, bytes) and not _utf8(value):
                        return f"{table} row {row[0]}, column {column}"
    except sqlite3.Error:
        return None
    finally:
        conn.text_factory = factory
    return None


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _read(c: sqlite3.Connection, path: str) -> tuple[State, bool, str]:
    rows = c.execute(f"SELECT {RULESET_COLUMNS} FROM ruleset").fetchall()
    campaign = c.execute(f"SELECT {CAMPAIGN_COLUMNS} FROM campaign").fetchall()
    if len(rows) != 1 or len(campaign) != 1:
        raise damaged(path, "no campaign data")
    pin, exact = pin_of(rows[0], path)
    characters = characters_of(c.execute("SELECT id, data FROM characters ORDER BY position"), path)
    items = items_of(c.execute("SELECT id, owner, data FROM items ORDER BY position"), characters, path)
    cards = _cards(c, characters, items, path)
    uses = uses_of(c.execute("SELECT briefing, tier, pc, option FROM briefing_uses ORDER BY seq"), path)
    return state_of(pin, characters, items, cards, campaign[0], uses, path), exact, rows[0][4]


# The columns each table's rows are read with (``Store.save`` writes them in this order too, so that
# the state it wrote is read off its own rows by the same functions: ``Store.committed``).
RULESET_COLUMNS = "path, content_hash, adopt, param_overrides, rules, parameters"
CAMPAIGN_COLUMNS = "clock_minutes, dawn_minutes, briefing, briefing_tier"


def pin_of(row: tuple, path: str) -> tuple[Pin, bool]:
    """The pin of the ruleset row; whether the row holds exactly it (not when a pin made before
    campaigns kept the wiring got it from its manifest)."""
    adopt, overrides, rules, parameters = (parse_json(v, path, f"ruleset.{n}") for v, n in
                                           zip(row[2:], ("adopt", "param_overrides", "rules", "parameters")))
    wiring = parameters.pop(WIRING_KEY, {}) if isinstance(parameters, dict) else {}
    if not isinstance(wiring, dict) or not isinstance(wiring.get("campaign", {}), dict):
        raise damaged(path, "the campaign wiring is not a mapping")
    stored = Pin(text(row[0], path, "ruleset.path"), text(row[1], path, "ruleset.content_hash"),
                 adopt, overrides, rules, parameters, wiring.get("campaign", {}),
                 str(wiring.get("manifest", "")))
    pin = with_manifest_wiring(stored, path)  # none stored: a campaign made before the wiring
    return pin, pin is stored


def characters_of(rows: Iterable[tuple], path: str) -> tuple[Holder, ...]:
    """The characters of their rows ``(id, data)``, in order."""
    return tuple(Holder(text(i, path, "a character id"), parse_json(d, path, f"the data of character {i}"))
                 for i, d in rows)


def items_of(rows: Iterable[tuple], characters: tuple[Holder, ...], path: str) -> tuple[Holder, ...]:
    """The items of their rows ``(id, owner, data)``, in order, each a character's."""
    pcs = {h.id for h in characters}
    items = []
    for i, o, d in rows:
        if o not in pcs:
            raise damaged(path, f"item {i} belongs to {o!r}, who is not a character of this campaign")
        items.append(Holder(text(i, path, "an item id"), parse_json(d, path, f"the data of item {i}"), o))
    return tuple(items)


def _cards(c: sqlite3.Connection, characters: tuple[Holder, ...], items: tuple[Holder, ...],
           path: str) -> DeckState:
    """``cards_of`` the table's rows: the deck (most of the cards) read in one row when its rows
    are as ``Store.save`` writes them (``_deck``), the others row by row."""
    deck = _deck(c)
    if deck is None:
        return cards_of(c.execute("SELECT card, place, holder FROM cards ORDER BY place, holder, position"),
                        characters, items, path)
    rest = cards_of(c.execute("SELECT card, place, holder FROM cards WHERE place IS NOT 'deck' "
                              "ORDER BY place, holder, position"), characters, items, path)
    return DeckState(deck, rest.discard, rest.holders)


_DECK_QUERY = ("SELECT count(*), group_concat(card, char(10)), group_concat(position), "
               "total(typeof(card) != 'text' OR typeof(position) != 'integer' OR holder IS NOT NULL) "
               "FROM cards WHERE place = 'deck'")
_POSITIONS: dict[int, str] = {}  # "0,1,...,n-1" by n


def _deck(c: sqlite3.Connection) -> tuple[str, ...] | None:
    """The deck in order, of one row SQLite makes of its rows (their cards and positions joined
    in the order it reads them), when that is sure to be what ``cards_of`` makes of them: every
    card text, held by no one, and the positions read 0, 1, 2, ... (so read in their order; the
    rows the deck's query reads are in no other order). None otherwise: the rows are read one by
    one, as they always were, and what is wrong with them is said the same way. The deck's
    rows raise nothing when they are so, so reading them first changes no error of the others."""
    count, cards, positions, odd = c.execute(_DECK_QUERY).fetchone()
    if odd or not isinstance(count, int):
        return None
    if count == 0:
        return ()
    expected = _POSITIONS.get(count)
    if expected is None:
        expected = _POSITIONS[count] = ("%d," * count % tuple(range(count)))[:-1]  # in C: a third cheaper
    if positions != expected or not isinstance(cards, str):
        return None
    deck = cards.split("\n")
    return tuple(deck) if len(deck) == count else None  # a card's name with a line break in it


def cards_of(rows: Iterable[tuple], characters: tuple[Holder, ...], items: tuple[Holder, ...],
             path: str) -> DeckState:
    """Where the cards are, of their rows ``(card, place, holder)`` in the order of their place,
    holder and position: every character and item a holder (in their order), even of no card."""
    held: dict[str, list[str]] = {h.id: [] for h in (*characters, *items)}
    deck: list[str] = []
    discard: list[str] = []
    places = {"deck": deck, "discard": discard}
    for card, place, holder in rows:
        if not isinstance(card, str):
            text(card, path, "a card")
        into = places.get(place)
        if into is None:
            if place == "held" and holder not in held:
                raise damaged(path, f"card {card} is held by {holder!r}, who is no character or item")
            into = held.get(holder, [])
        into.append(card)
    return DeckState(tuple(deck), tuple(discard), tuple((h, tuple(v)) for h, v in held.items()))


def uses_of(rows: Iterable[tuple], path: str) -> tuple[tuple[int, str, str, str], ...]:
    """The briefing uses of their rows ``(briefing, tier, pc, option)``, in order."""
    return tuple((whole(b, path, "a briefing number"), text(t, path, "a briefing tier"),
                  text(p, path, "a briefing PC"), text(o, path, "a briefing option"))
                 for b, t, p, o in rows)


def state_of(pin: Pin, characters: tuple[Holder, ...], items: tuple[Holder, ...], cards: DeckState,
             campaign: tuple, uses: tuple[tuple[int, str, str, str], ...], path: str) -> State:
    """The state of its parts and the campaign row ``(clock, dawn, briefing, tier)``, checked
    whole: the cards adding up to the deck."""
    clock, dawn, briefing, tier = campaign
    state = State(pin, characters, items, cards, whole(clock, path, "the clock"),
                  whole(dawn, path, "the dawn"), whole(briefing, path, "the briefing number"),
                  optional_text(tier, path, "the briefing tier"), uses)
    check_cards(state, path)
    return state


def card_rows(placed: DeckState) -> list[tuple[str, str, str | None, int]]:
    """The rows of the cards table for ``placed`` (card, place, holder, position), as written."""
    rows: list[tuple[str, str, str | None, int]] = [(card, "deck", None, n) for n, card in enumerate(placed.deck)]
    rows += [(card, "discard", None, n) for n, card in enumerate(placed.discard)]
    rows += [(card, "held", holder, n) for holder, held in placed.holders for n, card in enumerate(held)]
    return rows


# The types each table's columns keep as they are given (SQLite stores another type as the
# column's own: a whole float or a bool in an INTEGER column reads back as an int, a number in a
# TEXT one as text), in the order ``Store.save`` writes them.
_NONE = type(None)
_KEPT_TYPES: dict[str, tuple[frozenset, ...]] = {
    "ruleset": (frozenset({str}),) * 6,
    "campaign": (frozenset({int}),) * 3 + (frozenset({str, _NONE}),),
    "characters": (frozenset({str}), frozenset({int}), frozenset({str})),
    "items": (frozenset({str}), frozenset({int}), frozenset({str}), frozenset({str})),
    "cards": (frozenset({DeckState}),),  # the state the rows were written of (card_rows)
    "briefing_uses": (frozenset({int}), frozenset({str}), frozenset({str}), frozenset({str})),
}


def _written_cards(placed: DeckState, characters: tuple[Holder, ...], items: tuple[Holder, ...],
                   path: str) -> DeckState | None:
    """``cards_of`` the rows ``card_rows(placed)``: the deck's as they are (every card a text,
    held by no one, in order: what ``_deck`` reads of them), the others row by row."""
    names = {type(card) for card in placed.discard}
    for holder, held in placed.holders:
        names.add(type(holder))
        names.update(map(type, held))
    if not set(map(type, placed.deck)) | names <= {str}:
        return None
    rest: list[tuple[str, str, str | None]] = [(card, "discard", None) for card in placed.discard]
    rest += [(card, "held", holder) for holder, held in placed.holders for card in held]
    found = cards_of(rest, characters, items, path)
    return DeckState(tuple(placed.deck), found.discard, found.holders)


def written_state(path: str, rows: dict[str, list[tuple]], read: State | None) -> State | None:
    """The state a reading of the file gives (``read_state``) after the tables in ``rows`` were
    written with those rows, the others holding ``read`` (the state read of them before): read
    off the rows by the very functions that read the file's rows. None when that is not sure: a
    table not written and nothing read of it, a value SQLite stores as another type, a pin that
    is not the one its row holds, or rows that do not read back whole."""
    if read is None and len(rows) < len(_KEPT_TYPES):
        return None
    for table, table_rows in rows.items():
        for column, types in zip(zip(*table_rows), _KEPT_TYPES[table]):
            if not set(map(type, column)) <= types:
                return None
    try:
        if "ruleset" in rows:
            pin, exact = pin_of(rows["ruleset"][0], path)
            if not exact:
                return None
        else:
            assert read is not None
            pin = read.pin
        if "characters" in rows:
            characters = characters_of([(i, d) for i, _, d in rows["characters"]], path)
            items = items_of([(i, o, d) for i, _, o, d in rows["items"]], characters, path)
        else:
            assert read is not None
            characters, items = read.characters, read.items
        if "cards" in rows or "characters" in rows:
            written = rows["cards"][0][0] if "cards" in rows else read.cards  # type: ignore[union-attr]
            cards = _written_cards(written, characters, items, path)
            if cards is None:
                return None
        else:
            assert read is not None
            cards = read.cards
        if "briefing_uses" in rows:
            uses = uses_of(rows["briefing_uses"], path)
        else:
            assert read is not None
            uses = read.briefing_uses
        if "campaign" in rows:
            campaign = rows["campaign"][0]
        else:
            assert read is not None
            campaign = (read.clock_minutes, read.dawn_minutes, read.briefing, read.briefing_tier)
        return state_of(pin, characters, items, cards, campaign, uses, path)
    except MprError:
        return None


def check_cards(state: State, path: str) -> None:
    """The card invariant, checked on every open: a campaign whose cards do not add up is refused."""
    try:
        spec = state.deck_spec()
    except (MprError, TypeError, ValueError, AttributeError):
        raise damaged(path, "the pinned deck rule is not a deck") from None
    if _every_card_once(state.cards, spec.composition):
        return
    missing, extra = invariant_problems(state.cards, spec)
    if missing or extra:
        raise MprError(STATE_BROKEN, Location(path), file=path, missing=", ".join(missing) or "-",
                       extra=", ".join(extra) or "-")


def _every_card_once(placed: DeckState, composition: tuple[str, ...]) -> bool:
    """Whether the cards are the composition's, each once, in the usual case of a composition of
    distinct cards (as many cards, as many distinct ones, the same set: then the same multiset),
    in sets rather than counts; False decides nothing (``invariant_problems`` does)."""
    have = set(placed.deck)
    have.update(placed.discard)
    count = len(placed.deck) + len(placed.discard)
    for _, held in placed.holders:
        have.update(held)
        count += len(held)
    return count == len(composition) == len(have) and have == set(composition)


def read_entry(row: tuple, path: str) -> Entry:
    """One journal row, every field checked (``before`` must be a whole state)."""
    return Entry(*entry_values(row, path))


def entry_values(row: tuple, path: str) -> tuple:
    """The fields of the journal entry of ``row``, every one checked as ``read_entry`` checks
    them (``campaign check`` checks every entry so, making none)."""
    seq, command, inputs, seed, choices, result, undone_by, before = row
    where = f"journal entry #{seq}"
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise damaged(path, f"{where}: the seed is {seed!r}")
    state = None if before is None else parse_json(before, path, f"{where} (the state before it)")
    if state is not None and not is_patch(state):  # a whole state: kept before version 3
        checked(lambda: State.from_dump(state), path, f"{where} (the state before it)")
    return (seq, text(command, path, where), parse_json(inputs, path, where), seed,
            parse_json(choices, path, where, list), parse_json(result, path, where), undone_by, state)


ENTRY_COLUMNS = "seq, command, inputs, seed, choices, result, undone_by, before"  # as read_entry reads them


def journal_entries(conn: sqlite3.Connection, path: str, last: int | None = None) -> list[Entry]:
    """The journal in order, every entry checked; ``last``: only its newest ``last`` entries
    (only those are read)."""
    if last is None:
        rows = rows_of(conn, path, f"SELECT {ENTRY_COLUMNS} FROM journal ORDER BY seq")
    else:
        rows = rows_of(conn, path, f"SELECT {ENTRY_COLUMNS} FROM journal ORDER BY seq DESC LIMIT ?",
                       (max(last, 0),))[::-1]
    return [read_entry(row, path) for row in rows]


def rows_of(conn: sqlite3.Connection, path: str, query: str, arguments: tuple = ()) -> list[tuple]:
    """The rows of a query; what SQLite cannot read (text that is not UTF-8, a damaged page) is
    the damaged file it is (MPR620), saying where."""
    try:
        return conn.execute(query, arguments).fetchall()
    except sqlite3.DatabaseError as exc:
        raise damaged(path, describe(conn, exc)) from None


def checked(make: Callable[[], Any], path: str, where: str) -> Any:
    try:
        return make()
    except (KeyError, TypeError, ValueError, AttributeError):
        raise damaged(path, f"{where} is not a whole state") from None
