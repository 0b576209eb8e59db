"""The campaign store: one SQLite file (WAL, one ``BEGIN IMMEDIATE`` transaction per command) holding
the pinned ruleset, characters and items, where every card is, the clock, briefing uses and the
journal; versioned by a ``schema_version`` table with migrations from version 1 on."""
from __future__ import annotations

import os

from rules_dsl.words import bilingual
from rules_dsl.errors import EXIT_STATE, EXIT_USAGE, Location, MprError, define

from interpreter.solvers.cards import invariant_problems
from interpreter.campaign import delta, files, wal
from interpreter.campaign.files import (APPLICATION_ID, EXISTS, HOW_CREATE, HOW_REPLACE, MISSING, NOT_SQLITE, busy as _busy,
                    connect as _connect,
                    examine, existing as _existing, identity as _identity, not_saved as _not_saved,
                    inspect, os_error as _os_error, sqlite3, sqlite_error as _sqlite_error)
from interpreter.campaign.integrity import (STATE_BROKEN, VERSION_TABLE, WIRING_KEY, card_rows, check_schema,
                                            damaged, describe, entry_values, journal_entries, parse_json, read_entry, read_state,
                                            rows_of, written_state, checked as _checked)
from interpreter.campaign.pin import with_manifest_wiring
from interpreter.campaign.state import Entry, Holder, Pin, State

_RULES_MARKER = "\0mprules: the pin's rules\0"  # their place in a state's JSON text (_state_json)
_READS = 5  # times a file is read again when another command changed it while it was being read

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["APPLICATION_ID", "Entry", "Holder", "Pin", "State", "Store", "inspect"]

BAD_SEED = define(
    "MPR681", "the seed {seed} is too large to keep in a campaign file (at most {limit})",
    "シード {seed} はキャンペーンファイルに保存できる範囲を超えています（最大 {limit}）",
    exit_code=EXIT_USAGE)
SQLITE_MAX = 2**63 - 1
# The state's tables in the order they are emptied (items before the characters they belong to),
# each with the fields of the state it holds (items are written with the characters).
STATE_TABLES = (("cards", ("cards",)), ("briefing_uses", ("briefing_uses",)),
                ("items", ("characters", "items")), ("characters", ("characters", "items")),
                ("campaign", ("clock_minutes", "dawn_minutes", "briefing", "briefing_tier")),
                ("ruleset", ("pin",)))

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
    (2, ""),  # the file's token in the header (``wal``): set by ``_migrate``, no table changes
    (3, ""),  # journal entries keep what changed (``delta``): rewritten by ``_migrate``
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
TOKEN_VERSION = 2
PATCH_VERSION = 3

NOT_UNDOABLE = define(
    "MPR687", "{file}: journal entry #{seq} ({command}) was written for another state of the campaign than "
              "the one it holds now, so it cannot be taken back; nothing was changed",
    "{file}: 記録 #{seq}（{command}）は、いまのキャンペーンとは別の状態に対して書かれているため、"
    "取り消せません。何も変更していません", exit_code=EXIT_STATE)


class Store:
    """An open campaign file. Every change happens inside ``with store.transaction():``."""

    def __init__(self, path: str, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self.identity = _identity(path)
        # The state read or written last, by data_version, and whether the tables hold exactly it.
        self._loaded: tuple[int, State, bool] | None = None
        self._rules_text: tuple[dict, str] | None = None  # the pin's rules and their JSON text
        # What ``committed`` reads the state off, by data_version: the state read, or the rows
        # written last with the state read before them (for the tables not written).
        self._read_as: tuple[int, Any, State | None] | None = None

    @staticmethod
    def refuse_existing(path: str, force: bool) -> None:
        """Refuse early what ``build`` would refuse: an existing file without ``force``, or a
        path that is not a regular file."""
        if _existing(path) is not None and not force:
            raise MprError(EXISTS, Location(path), file=path, how=bilingual(HOW_REPLACE))

    @classmethod
    def build(cls, path: str, fill: Callable[["Store"], T], *, force: bool = False) -> T:
        """A new campaign file written by ``fill(store)`` (inside one transaction), made whole in a
        temporary file of the same folder, synced, then renamed over ``path``: at every moment
        ``path`` is the old campaign or the new one, never neither; any failure (a bad argument,
        a full disk, a kill, another command using the old file) leaves the old one as it was."""
        old = _existing(path)
        if old is not None and not force:
            raise MprError(EXISTS, Location(path), file=path, how=bilingual(HOW_REPLACE))
        wal.check(path, replacing=True)
        files.clean_temporaries(path)
        folder = os.path.dirname(os.path.abspath(path)) or "."
        temp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            store = cls(path, _connect(temp, "rwc"))
            try:
                store.conn.execute("PRAGMA journal_mode = WAL")
                store.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                with store.transaction():
                    store.conn.execute(VERSION_TABLE)
                    store._migrate(0)
                with store.transaction():
                    result = fill(store)
                store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                store.close()
            files.fsync(temp)
            files.swap(temp, path, old, _connect)
        except sqlite3.Error as exc:
            raise _not_saved(path, exc) from None
        except OSError as exc:
            raise _os_error(path, exc) from None
        finally:
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    os.unlink(temp + suffix)
                except OSError:
                    pass  # not made, or already renamed into place
        return result

    @classmethod
    def open(cls, path: str, *, readonly: bool = False) -> "Store":
        """An existing campaign file, migrated to this version; refused (unchanged) if not one.
        ``readonly``: for commands that only read (show, log, export), which then leave no trace.

        The file is examined, and a reading command reads it, through a connection that takes no
        lock when no command is writing (``files.connect_readonly``). Another command may begin
        to write in that moment, and what was read is then torn, not damaged: when the file
        changed while it was being read, it is read again (a damaged file reads the same each
        time, and is refused)."""
        for _ in range(_READS - 1):
            before = files.file_state(path)
            try:
                return cls._open_once(path, readonly)
            except MprError as error:
                if error.code not in (NOT_SQLITE, STATE_BROKEN) or files.file_state(path) == before:
                    raise
        return cls._open_once(path, readonly)

    @classmethod
    def _open_once(cls, path: str, readonly: bool) -> "Store":
        info = _existing(path)
        if info is None:
            raise MprError(MISSING, Location(path), file=path, how=bilingual(HOW_CREATE))
        if not readonly:
            files.clean_temporaries(path)
        version, examined = examine(path, SCHEMA_VERSION)
        if version >= TOKEN_VERSION and wal.file_token(path)[1] == 0:
            examined.close()
            raise damaged(path, "the header has no file token (user_version)")
        readonly = readonly and version == SCHEMA_VERSION
        if not readonly:
            examined.close()
        if not readonly and info.st_size > files.MAX_CAMPAIGN_FILE_BYTES:
            raise files.too_large(path)  # a file past its limit is only read
        store = None
        try:
            conn = examined if readonly else _connect(path, "rw")
            store = cls(path, conn)
            if version < SCHEMA_VERSION:
                with store.transaction():
                    store._migrate(version)
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")  # the token into the file itself
            check_schema(conn, path, MIGRATIONS)
            store.load()  # every value, and the cards adding up, checked on opening
        except (sqlite3.Error, MprError) as exc:
            if store is not None:
                store.close()
            if isinstance(exc, MprError):
                raise
            raise _sqlite_error(path, exc) from None
        return store

    def exact(self) -> bool:
        """Whether the state read is exactly what the tables hold (``read_state``)."""
        return self._loaded is not None and self._loaded[2]

    def _migrate(self, version: int) -> None:
        """The migrations after ``version`` (inside a transaction; none that another command
        made meanwhile)."""
        stored = self.conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        for number, script in MIGRATIONS:
            if number > max(version, stored or 0):
                for statement in filter(str.strip, script.split(";")):
                    self.conn.execute(statement)
                if number == TOKEN_VERSION:
                    self.conn.execute(f"PRAGMA user_version = {wal.new_token()}")
                if number == PATCH_VERSION and version:
                    self._compact_journal()
                self.conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def transaction(self) -> "_Transaction":
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: all of a command's changes, or none of them."""
        return _Transaction(self)

    def _sign(self) -> None:
        """Write the file's token again, so that this transaction's commit in the WAL holds the
        header page and names the file it was written for (``wal.check``)."""
        token = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if token:
            self.conn.execute(f"PRAGMA user_version = {int(token)}")

    def _rollback(self) -> None:
        """Undo a failed command; SQLite has already undone it when the rollback itself fails
        (a full disk), and the file never holds half a command either way."""
        self._loaded = self._read_as = None  # the state written in the transaction is gone
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _commit(self) -> None:
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _not_saved(self.path, exc, self.conn) from None

    # -- state ---------------------------------------------------------------------------------

    def load(self) -> State:
        """The state as stored (the journal apart), every value checked (``integrity``). Read
        again only when it may have changed since it was last read or written here: by another
        connection's commit (SQLite's ``data_version``), or by a rolled-back write of this one."""
        version = self._data_version()
        if self._loaded is not None and self._loaded[0] == version:
            return self._loaded[1]
        state, exact, rules_text = read_state(self.conn, self.path)
        self._loaded = (version, state, exact)
        self._read_as = (version, state, None) if exact else None
        self._rules_text = (state.pin.rules, rules_text)
        return state

    def _data_version(self) -> int:
        """SQLite's count of the commits of other connections (this one's own leave it as it is)."""
        try:
            return self.conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as exc:
            raise damaged(self.path, str(exc)) from None

    def save(self, state: State) -> None:
        """Replace the stored state by ``state`` (inside a transaction), after checking that its
        cards add up to the deck: a state that breaks the invariant is never written. Only the
        tables whose part of the state differs from the stored one are written again."""
        missing, extra = invariant_problems(state.cards, state.deck_spec())
        if missing or extra:
            raise MprError(STATE_BROKEN, Location(self.path), file=self.path,
                           missing=", ".join(missing) or "-", extra=", ".join(extra) or "-")
        version = self._data_version()
        stored = self._loaded[1] if self._loaded is not None and self._loaded[0] == version \
            and self._loaded[2] else None
        read = self.committed() if self._read_as is not None and self._read_as[0] == version else None
        self._loaded = self._read_as = None  # until every table below is written

        def changed(*fields: str) -> bool:
            return stored is None or any(getattr(stored, f) != getattr(state, f) for f in fields)

        c = self.conn
        tables = [t for t, fields in STATE_TABLES if changed(*fields)]
        rows: dict[str, list[tuple]] = {}  # each table written, with its rows as the columns are read
        for table in tables:
            c.execute(f"DELETE FROM {table}")
        if "ruleset" in tables:
            p = state.pin
            wiring = {WIRING_KEY: {"campaign": p.campaign, "manifest": p.manifest}}
            rows["ruleset"] = [(p.path, p.content_hash, _json(p.adopt), _json(p.param_overrides),
                                self._text_of_rules(p), _json({**p.parameters, **wiring}))]
            c.execute("INSERT INTO ruleset VALUES (1, ?, ?, ?, ?, ?, ?)", rows["ruleset"][0])
        if "campaign" in tables:
            rows["campaign"] = [(state.clock_minutes, state.dawn_minutes, state.briefing, state.briefing_tier)]
            c.execute("INSERT INTO campaign VALUES (1, ?, ?, ?, ?)", rows["campaign"][0])
        if "characters" in tables:
            rows["characters"] = [(h.id, n, _json(h.data)) for n, h in enumerate(state.characters)]
            rows["items"] = [(h.id, n, h.owner, _json(h.data)) for n, h in enumerate(state.items)]
            c.executemany("INSERT INTO characters VALUES (?, ?, ?)", rows["characters"])
            c.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", rows["items"])
        if "cards" in tables:
            rows["cards"] = [(state.cards,)]  # its rows are card_rows(state.cards)
            c.executemany("INSERT INTO cards VALUES (?, ?, ?, ?)", card_rows(state.cards))
        if "briefing_uses" in tables:
            rows["briefing_uses"] = list(state.briefing_uses)
            c.executemany("INSERT INTO briefing_uses (briefing, tier, pc, option) VALUES (?, ?, ?, ?)",
                          rows["briefing_uses"])
        self._loaded = (version, state, True)  # what this connection now reads (forgotten on a rollback)
        self._read_as = (version, rows, read)  # read as ``committed`` when it is asked for

    def committed(self) -> State | None:
        """The state exactly as a command reading the file now would read it (``read_state``:
        the same values, types and order), when this connection wrote it last or read it and no
        other connection changed the file since (SQLite's ``data_version``); None when that is not
        sure: another connection committed, a table not written was not read here, a value is of
        a type SQLite would store as another, or the written state does not read back whole."""
        known = self._read_as
        if known is None or known[0] != self._data_version():
            return None
        if isinstance(known[1], State):
            return known[1]
        state = written_state(self.path, known[1], known[2])
        self._read_as = None if state is None else (known[0], state, None)
        return state

    # -- journal -------------------------------------------------------------------------------

    def journal(self, command: str, inputs: dict[str, Any], seed: int | None, choices: list[Any],
                result: dict[str, Any], before: State | None) -> int:
        """Journal a command whose state was saved (``save``) in this transaction; ``before``:
        the state before it (for undo), kept as what changed (``delta``)."""
        if seed is not None and not -SQLITE_MAX <= seed <= SQLITE_MAX:
            raise MprError(BAD_SEED, Location(path="seed"), seed=seed, limit=SQLITE_MAX)
        kept = None
        if before is not None:
            after = self.load()  # the state saved in this transaction
            kept = _json(delta.entry_before(after.dump(), before.dump(), self._state_json(after)))
        cursor = self.conn.execute(
            "INSERT INTO journal (command, inputs, seed, choices, result, before) VALUES (?, ?, ?, ?, ?, ?)",
            (command, _json(inputs), seed, _json(choices), _json(result), kept))
        assert cursor.lastrowid is not None  # set by every INSERT
        return cursor.lastrowid

    def state_before(self, entry: Entry) -> State:
        """The state before ``entry``'s command, which must be the newest not yet undone: its
        patch applied to the state the campaign holds now (checked to be the one it was written
        for), or the whole state a file made before version 3 kept."""
        kept = entry.before
        assert kept is not None  # only entries with a state before them are undone
        if not delta.is_patch(kept):
            return State.from_dump(kept)
        now = self.load()
        if delta.digest(self._state_json(now)) != kept[delta.BASE]:
            raise MprError(NOT_UNDOABLE, Location(self.path), file=self.path, seq=entry.seq,
                           command=entry.command)
        where = f"journal entry #{entry.seq} (the state before it)"
        try:
            data = delta.apply(now.dump(), kept[delta.PATCH])
        except (ValueError, TypeError):
            raise damaged(self.path, f"{where} does not fit the campaign") from None
        return _checked(lambda: State.from_dump(data), self.path, where)

    def _compact_journal(self) -> None:
        """The migration to version 3: every whole state kept before a command becomes the patch
        from the state after it. The entries not undone form a chain (the state after each is the
        state before the next, and after the newest it is the campaign's own), so each one's base
        is known; an undone entry is never undone again, and is patched from the next base."""
        rows = self.conn.execute("SELECT seq, before, undone_by FROM journal WHERE before IS NOT NULL "
                                 "ORDER BY seq DESC").fetchall()
        if not rows:
            return
        base = read_state(self.conn, self.path)[0]
        base_dump, base_text = base.dump(), self._state_json(base)
        for seq, kept, undone_by in rows:
            where = f"journal entry #{seq} (the state before it)"
            data = parse_json(kept, self.path, where)
            if delta.is_patch(data):
                continue
            before = _checked(_dumped(data), self.path, where)
            before = before.evolve(pin=with_manifest_wiring(before.pin, self.path))
            self.conn.execute("UPDATE journal SET before = ? WHERE seq = ?",
                              (_json(delta.entry_before(base_dump, before.dump(), base_text)), seq))
            if undone_by is None:
                base_dump, base_text = before.dump(), self._state_json(before)

    def _text_of_rules(self, pin: Pin) -> str:
        """``_json(pin.rules)``: the text read with them when they are the rules read (a pin that
        no command changes is not written out again, a sixth of a command's own work)."""
        known = self._rules_text
        if known is not None and known[0] is pin.rules:
            return known[1]
        text = _json(pin.rules)
        self._rules_text = (pin.rules, text)
        return text

    def _state_json(self, state: State) -> str:
        """``_json(state.dump())``, with the pin's rules as ``_text_of_rules`` gives them (put in
        the place a marker holds in the rest of the state's text)."""
        data = state.dump()
        data["pin"]["rules"] = _RULES_MARKER
        text, marker = _json(data), _json(_RULES_MARKER)
        if text.count(marker) != 1:  # the state holds the marker's text itself
            return _json(state.dump())
        return text.replace(marker, self._text_of_rules(state.pin))

    def entries(self, last: int | None = None) -> list[Entry]:
        """The journal in order; ``last``: only its newest ``last`` entries (only those are read)."""
        return journal_entries(self.conn, self.path, last)

    def last_undoable(self) -> Entry | None:
        rows = self._rows(
            "SELECT seq, command, inputs, seed, choices, result, undone_by, before FROM journal "
            "WHERE undone_by IS NULL AND before IS NOT NULL AND command != 'undo' "
            "ORDER BY seq DESC LIMIT 1")
        return read_entry(rows[0], self.path) if rows else None

    def _rows(self, query: str, arguments: tuple = ()) -> list[tuple]:
        """The rows of a query of the journal (``integrity.rows_of``)."""
        return rows_of(self.conn, self.path, query, arguments)

    def check(self) -> dict[str, Any]:
        """``campaign check``: SQLite's full ``integrity_check`` of every page (the opening of a
        large file runs none, ``files.examine``), and every journal entry read and checked;
        MPR620 saying what is wrong, else what was checked."""
        try:
            found = [row[0] for row in self.conn.execute("PRAGMA integrity_check(20)")]
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, describe(self.conn, exc)) from None
        if found != ["ok"]:
            raise damaged(self.path, "; ".join(found))
        count, last = 0, 0
        while True:  # every entry, a thousand at a time
            rows = self._rows("SELECT seq, command, inputs, seed, choices, result, undone_by, before "
                              "FROM journal WHERE seq > ? ORDER BY seq LIMIT 1000", (last,))
            if not rows:
                break
            for row in rows:
                entry_values(row, self.path)
            count, last = count + len(rows), rows[-1][0]
        state = self.load()
        return {"file": files.shown_path(self.path), "ok": True, "bytes": os.stat(self.path).st_size,
                "entries": count, "characters": len(state.characters), "items": len(state.items),
                "cards": len(state.cards.deck) + len(state.cards.discard)
                + sum(len(c) for _, c in state.cards.holders)}

    def mark_undone(self, seq: int, by: int) -> None:
        self.conn.execute("UPDATE journal SET undone_by = ? WHERE seq = ?", (by, seq))


def _dumped(data: Any) -> Callable[[], State]:
    """What makes the state ``data`` is the dump of (``integrity.checked`` calls it)."""
    return lambda: State.from_dump(data)


def _json(value: Any) -> str:
    # start-up: json loads only for a command that writes (reading commands read JSON without it)
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class _Transaction:
    """The context of ``Store.transaction()`` (a class, not a generator: ``contextlib`` is not
    loaded for it). On a normal exit the changes are committed; on any exception they are rolled
    back, and an error of SQLite (the file, the disk) is reported as the command not being saved,
    while an integrity or programming error of SQLite is raised as it is (a bug of mprules)."""

    __slots__ = ("store",)

    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> None:
        store = self.store
        try:
            store.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _sqlite_error(store.path, exc) from None
        if store.identity is not None and _identity(store.path) != store.identity:
            store._rollback()  # `init --force` replaced the file since it was opened
            raise _busy(store.path)
        try:
            store._sign()
        except BaseException as exc:
            self._fail(exc)
            raise

    def __exit__(self, kind: Any, exc: BaseException | None, trace: Any) -> None:
        if exc is None:
            try:
                self.store._commit()
            except BaseException:
                self.store._rollback()
                raise
            return
        self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        """Roll back; raise the error that stands for ``exc`` when it is one of the file's."""
        store = self.store
        limit = isinstance(exc, sqlite3.DatabaseError) and files.at_limit(store.conn)
        store._rollback()
        if isinstance(exc, sqlite3.DatabaseError) and \
                not isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError)):
            raise _not_saved(store.path, exc, store.conn if limit else None) from None
