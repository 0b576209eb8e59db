"""The campaign store: one SQLite file (WAL, one ``BEGIN IMMEDIATE`` transaction per command) holding
the pinned ruleset, characters and items, where every card is, the clock, briefing uses and the
journal; versioned by a ``schema_version`` table with migrations from version 1 on."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rules_dsl.errors import EXIT_STATE, Location, MprError, define
from rules_dsl.limits import CAMPAIGN_BUSY_TIMEOUT_SECONDS, MAX_CAMPAIGN_FILE_BYTES

from ..kinds.deck import DeckState, invariant_problems
from .state import Entry, Holder, Pin, State

__all__ = ["Entry", "Holder", "Pin", "State", "Store", "inspect"]

NOT_SQLITE = define(
    "MPR620", "{file} is not a campaign: not an SQLite database or damaged ({detail}); it was left unchanged",
    "{file} はキャンペーンファイルではありません: SQLite データベースでないか破損しています（{detail}）。ファイルは変更していません",
    exit_code=EXIT_STATE)
FOREIGN = define(
    "MPR621", "{file} is an SQLite database but not an mprules campaign; it was left unchanged",
    "{file} は SQLite データベースですが mprules のキャンペーンではありません。ファイルは変更していません",
    exit_code=EXIT_STATE)
NEWER = define(
    "MPR622", "{file} was written by a newer mprules (schema version {version}; this one knows up to {known}): "
              "upgrade mprules; the file was left unchanged",
    "{file} は新しい mprules で作成されています（スキーマ版 {version}、この版は {known} まで対応）。"
    "mprules を更新してください。ファイルは変更していません",
    exit_code=EXIT_STATE)
MISSING = define(
    "MPR623", "no campaign file {file} (create one with `mprules campaign init`)",
    "キャンペーンファイル {file} がありません（`mprules campaign init` で作成してください）",
    exit_code=EXIT_STATE)
EXISTS = define(
    "MPR624", "{file} already exists; use --force to replace it",
    "{file} は既に存在します。置き換えるには --force を指定してください")
BUSY = define(
    "MPR625", "{file} is busy: another command is writing it (waited {seconds} s); nothing was changed, try again",
    "{file} は他のコマンドが書き込み中です（{seconds} 秒待ちました）。何も変更していません。もう一度実行してください",
    exit_code=EXIT_STATE)
NOT_SAVED = define(
    "MPR629", "{file}: the command could not be saved ({detail}); the campaign was left as it was before it",
    "{file}: コマンドの結果を保存できませんでした（{detail}）。キャンペーンは実行前の状態のままです",
    exit_code=EXIT_STATE)
IO_ERROR = define(
    "MPR626", "cannot use campaign file {file}: {detail}",
    "キャンペーンファイル {file} を使用できません: {detail}", exit_code=EXIT_STATE)
STATE_BROKEN = define(
    "MPR627", "{file}: the cards do not add up to the deck (missing {missing}, extra {extra}); nothing was changed",
    "{file}: カードが山札の構成と一致しません（不足 {missing}、余分 {extra}）。何も変更していません",
    exit_code=EXIT_STATE)

APPLICATION_ID = 0x4D505243  # "MPRC": marks an mprules campaign among SQLite files
SQLITE_HEADER = b"SQLite format 3\x00"
STATE_TABLES = ("cards", "briefing_uses", "items", "characters", "campaign", "ruleset")  # delete order

MIGRATIONS: list[tuple[int, str]] = [
    (1, """
CREATE TABLE ruleset (id INTEGER PRIMARY KEY CHECK (id = 1), path TEXT NOT NULL,
    content_hash TEXT NOT NULL, adopt TEXT NOT NULL, param_overrides TEXT NOT NULL,
    rules TEXT NOT NULL, parameters TEXT NOT NULL);
CREATE TABLE campaign (id INTEGER PRIMARY KEY CHECK (id = 1), clock_minutes INTEGER NOT NULL,
    dawn_minutes INTEGER NOT NULL, briefing INTEGER NOT NULL, briefing_tier TEXT);
CREATE TABLE characters (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE items (id TEXT PRIMARY KEY, position INTEGER NOT NULL,
    owner TEXT NOT NULL REFERENCES characters(id), data TEXT NOT NULL);
CREATE TABLE cards (card TEXT PRIMARY KEY, place TEXT NOT NULL CHECK (place IN ('deck', 'discard', 'held')),
    holder TEXT, position INTEGER NOT NULL,
    CHECK ((place = 'held') = (holder IS NOT NULL)));
CREATE TABLE briefing_uses (seq INTEGER PRIMARY KEY, briefing INTEGER NOT NULL, tier TEXT NOT NULL,
    pc TEXT NOT NULL, option TEXT NOT NULL);
CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT NOT NULL,
    inputs TEXT NOT NULL, seed INTEGER, choices TEXT NOT NULL, result TEXT NOT NULL,
    before TEXT, undone_by INTEGER);
"""),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
WIRING_KEY = "@wiring"  # in the pin's parameters column: the manifest's campaign wiring and its file


def _busy(path: str) -> MprError:
    return MprError(BUSY, Location(path), file=path, seconds=CAMPAIGN_BUSY_TIMEOUT_SECONDS)


def _connect(path: str, mode: str) -> sqlite3.Connection:
    uri = f"file:{quote(Path(path).resolve().as_posix())}?mode={mode}"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=CAMPAIGN_BUSY_TIMEOUT_SECONDS)
    conn.execute("PRAGMA foreign_keys = ON")
    # WAL with synchronous FULL: a committed command survives a killed process and a power cut.
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _sqlite_error(path: str, exc: sqlite3.Error) -> MprError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return _busy(path)
    return MprError(IO_ERROR, Location(path), file=path, detail=text)


def _not_saved(path: str, exc: sqlite3.Error) -> MprError:
    """A write that failed inside a command's transaction (rolled back): busy, or not saved."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return _busy(path)
    if getattr(exc, "sqlite_errorcode", None) == 13 or "full" in text:  # SQLITE_FULL
        text = "the disk is full"
    return MprError(NOT_SAVED, Location(path), file=path, detail=text)


def inspect(path: str) -> None:
    """Refuse, without writing anything, a file that is not a campaign this mprules can open."""
    file = Path(path)
    if not file.is_file():
        raise MprError(MISSING, Location(path), file=path)
    try:
        size = file.stat().st_size
        with open(file, "rb") as stream:
            header = stream.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise MprError(IO_ERROR, Location(path), file=path, detail=exc.strerror or str(exc)) from None
    if header != SQLITE_HEADER or size > MAX_CAMPAIGN_FILE_BYTES:
        raise MprError(NOT_SQLITE, Location(path), file=path,
                       detail="no SQLite header" if header != SQLITE_HEADER else "too large")
    try:
        conn = _connect(path, "ro")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise MprError(FOREIGN, Location(path), file=path)
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise MprError(NOT_SQLITE, Location(path), file=path, detail=check)
            version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise _busy(path) from None
        raise MprError(NOT_SQLITE, Location(path), file=path, detail=str(exc)) from None
    if not isinstance(version, int) or version < 1:
        raise MprError(NOT_SQLITE, Location(path), file=path, detail="no schema version")
    if version > SCHEMA_VERSION:
        raise MprError(NEWER, Location(path), file=path, version=version, known=SCHEMA_VERSION)


class Store:
    """An open campaign file. Every change happens inside ``with store.transaction():``."""

    def __init__(self, path: str, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @classmethod
    def create(cls, path: str, *, force: bool = False) -> "Store":
        """A new, empty campaign file (schema only); ``force`` replaces an existing file."""
        file = Path(path)
        if file.exists():
            if not force:
                raise MprError(EXISTS, Location(path), file=path)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        try:
            conn = _connect(path, "rwc")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            store = cls(path, conn)
            with store.transaction():
                conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
                store._migrate(0)
        except sqlite3.Error as exc:
            raise _sqlite_error(path, exc) from None
        return store

    @classmethod
    def open(cls, path: str) -> "Store":
        """An existing campaign file, migrated to this version; refused (unchanged) if not one."""
        inspect(path)
        try:
            conn = _connect(path, "rw")
            store = cls(path, conn)
            version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                with store.transaction():
                    store._migrate(version)
        except sqlite3.Error as exc:
            raise _sqlite_error(path, exc) from None
        return store

    def _migrate(self, version: int) -> None:
        for number, script in MIGRATIONS:
            if number > version:
                for statement in filter(str.strip, script.split(";")):
                    self.conn.execute(statement)
                self.conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: all of a command's changes, or none of them."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _sqlite_error(self.path, exc) from None
        try:
            yield
            self._commit()
        except (sqlite3.OperationalError, sqlite3.DatabaseError) as exc:
            self._rollback()
            if isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError)):
                raise  # a bug of mprules, not a state of the file
            raise _not_saved(self.path, exc) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        """Undo a failed command; SQLite has already undone it when the rollback itself fails
        (a full disk), and the file never holds half a command either way."""
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _commit(self) -> None:
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _not_saved(self.path, exc) from None

    # -- state ---------------------------------------------------------------------------------

    def load(self) -> State:
        """The state as stored (the journal apart)."""
        c = self.conn
        row = c.execute("SELECT path, content_hash, adopt, param_overrides, rules, parameters "
                        "FROM ruleset").fetchone()
        if row is None:
            raise MprError(NOT_SQLITE, Location(self.path), file=self.path, detail="no campaign data")
        adopt, overrides, rules, parameters = (json.loads(v) for v in row[2:])
        wiring = parameters.pop(WIRING_KEY, {})  # the campaign wiring rides with the parameters
        pin = Pin(row[0], row[1], adopt, overrides, rules, parameters, wiring.get("campaign", {}),
                  wiring.get("manifest", ""))
        clock, dawn, briefing, tier = c.execute(
            "SELECT clock_minutes, dawn_minutes, briefing, briefing_tier FROM campaign").fetchone()
        characters = tuple(Holder(i, json.loads(d)) for i, d in
                           c.execute("SELECT id, data FROM characters ORDER BY position"))
        items = tuple(Holder(i, json.loads(d), o) for i, o, d in
                      c.execute("SELECT id, owner, data FROM items ORDER BY position"))
        held: dict[str, list[str]] = {h.id: [] for h in (*characters, *items)}
        deck: list[str] = []
        discard: list[str] = []
        for card, place, holder in c.execute(
                "SELECT card, place, holder FROM cards ORDER BY place, holder, position"):
            if place == "deck":
                deck.append(card)
            elif place == "discard":
                discard.append(card)
            else:
                held.setdefault(holder, []).append(card)
        uses = tuple(tuple(r) for r in c.execute(
            "SELECT briefing, tier, pc, option FROM briefing_uses ORDER BY seq"))
        cards = DeckState(tuple(deck), tuple(discard), tuple((h, tuple(v)) for h, v in held.items()))
        return State(pin, characters, items, cards, clock, dawn, briefing, tier, uses)

    def save(self, state: State) -> None:
        """Replace the stored state by ``state`` (inside a transaction), after checking that its
        cards add up to the deck: a state that breaks the invariant is never written."""
        missing, extra = invariant_problems(state.cards, state.deck_spec())
        if missing or extra:
            raise MprError(STATE_BROKEN, Location(self.path), file=self.path,
                           missing=", ".join(missing) or "-", extra=", ".join(extra) or "-")
        c = self.conn
        for table in STATE_TABLES:
            c.execute(f"DELETE FROM {table}")
        p = state.pin
        c.execute("INSERT INTO ruleset VALUES (1, ?, ?, ?, ?, ?, ?)",
                  (p.path, p.content_hash, *(_json(v) for v in
                                             (p.adopt, p.param_overrides, p.rules,
                                              {**p.parameters, WIRING_KEY: {"campaign": p.campaign,
                                                                            "manifest": p.manifest}}))))
        c.execute("INSERT INTO campaign VALUES (1, ?, ?, ?, ?)",
                  (state.clock_minutes, state.dawn_minutes, state.briefing, state.briefing_tier))
        c.executemany("INSERT INTO characters VALUES (?, ?, ?)",
                      [(h.id, n, _json(h.data)) for n, h in enumerate(state.characters)])
        c.executemany("INSERT INTO items VALUES (?, ?, ?, ?)",
                      [(h.id, n, h.owner, _json(h.data)) for n, h in enumerate(state.items)])
        rows = [(card, "deck", None, n) for n, card in enumerate(state.cards.deck)]
        rows += [(card, "discard", None, n) for n, card in enumerate(state.cards.discard)]
        rows += [(card, "held", holder, n) for holder, cards in state.cards.holders
                 for n, card in enumerate(cards)]
        c.executemany("INSERT INTO cards VALUES (?, ?, ?, ?)", rows)
        c.executemany("INSERT INTO briefing_uses (briefing, tier, pc, option) VALUES (?, ?, ?, ?)",
                      state.briefing_uses)

    # -- journal -------------------------------------------------------------------------------

    def journal(self, command: str, inputs: dict[str, Any], seed: int | None, choices: list[Any],
                result: dict[str, Any], before: State | None) -> int:
        cursor = self.conn.execute(
            "INSERT INTO journal (command, inputs, seed, choices, result, before) VALUES (?, ?, ?, ?, ?, ?)",
            (command, _json(inputs), seed, _json(choices), _json(result),
             None if before is None else _json(before.dump())))
        return int(cursor.lastrowid)

    def entries(self) -> list[Entry]:
        return [_entry(row) for row in self.conn.execute(
            "SELECT seq, command, inputs, seed, choices, result, undone_by, before "
            "FROM journal ORDER BY seq")]

    def last_undoable(self) -> Entry | None:
        row = self.conn.execute(
            "SELECT seq, command, inputs, seed, choices, result, undone_by, before FROM journal "
            "WHERE undone_by IS NULL AND before IS NOT NULL AND command != 'undo' "
            "ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else _entry(row)

    def mark_undone(self, seq: int, by: int) -> None:
        self.conn.execute("UPDATE journal SET undone_by = ? WHERE seq = ?", (by, seq))


def _entry(row: tuple) -> Entry:
    seq, command, inputs, seed, choices, result, undone_by, before = row
    return Entry(seq, command, json.loads(inputs), seed, json.loads(choices), json.loads(result),
                 undone_by, None if before is None else json.loads(before))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
