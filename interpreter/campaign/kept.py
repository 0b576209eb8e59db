"""The reading commands (``show``, ``log``, ``export``) on a campaign file they have read before:
the state, once read from the file and checked whole (``Store.open``: SQLite's ``quick_check`` of a
file up to its limit, the tables, every value, the cards adding up), is kept in the cache with what
tells that version of the file from any other (its path, device, inode, size, modification and
change times, and the code of this mprules). While the file is that version, a reading command
takes the state from the cache: SQLite is not loaded for ``show`` and ``export``, and ``log``
reads only the journal entries it prints.

An entry is used only when no command is writing the file or was killed writing it (no ``-wal``
that holds anything, no ``-journal`` beside it), and when the file was last changed at least
``cachefile.RACY_SECONDS`` before the entry was written (a change in the same tick of the file
system's clock may leave size and times as they were). A file changed in any way (a command, an
edit, a copy over it, damage) is another version: read and checked again, and refused with its
code when it is damaged. ``campaign check`` never uses the cache; ``--no-cache`` and
``MPRULES_NO_CACHE=1`` turn it off."""
from __future__ import annotations

import os
from time import sleep, time_ns

from rules_dsl import cachefile
from rules_dsl.errors import MprError

from interpreter.campaign.shown import names_of, shown
from interpreter.campaign.state import Pin, State

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from interpreter.campaign.state import Entry
    from interpreter.campaign.store import Store

FORMAT = b"MPRK2"  # the tag of a kept campaign state
_HEADER = 100  # the bytes of SQLite's database header
_MTIME, _CTIME, _HEADER_AT = 4, 5, 6  # the modification and change times and the header in a version


def version_of(path: str) -> tuple[Any, ...] | None:
    """What tells this version of the campaign file from any other; None when it cannot be kept
    (the cache is off, the file cannot be read, or a ``-journal`` or a ``-wal`` that holds
    anything is beside it): its path, device, inode, size, modification and change times, the
    file's own SQLite header (its token, page count and change counter) and this mprules's code."""
    if not cachefile.enabled():
        return None
    try:
        where = os.path.abspath(path)
        with open(path, "rb") as stream:
            st = os.fstat(stream.fileno())
            header = stream.read(_HEADER)
    except (OSError, ValueError, TypeError):
        return None
    if os.path.lexists(path + "-journal") or _size(path + "-wal"):
        return None
    return (where, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, header,
            cachefile.code_stamp())


def _size(path: str) -> int:
    """The size of a file beside the campaign (0: none; an empty ``-wal`` holds nothing, as
    ``files.connect_readonly`` reads it; one that cannot be read counts as holding something)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0
    except OSError:
        return 1


def _entry(version: tuple[Any, ...]) -> str:
    # start-up: zlib is loaded by the cache file's own check anyway
    import zlib

    name = zlib.crc32(version[0].encode("utf-8", "surrogatepass"))
    return os.path.join(cachefile.cache_root(), f"campaign-{name:08x}.bin")


def kept_parts(version: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """What is kept for exactly this version of the file (None: nothing, or nothing that can be
    trusted): the parts ``show`` and ``log`` print (``show``, ``names``), the pin's ``path``,
    ``content_hash``, ``adopt`` and ``param_overrides`` (``pin``: what the ruleset check reads),
    and the whole state (``state``, in ``marshal``'s format: decoded only when asked for), with
    any text made of the state since (``Reading.text``)."""
    if version is None:
        return None
    try:
        body = cachefile.read_checked(_entry(version), FORMAT)
    except (OSError, ValueError):
        return None
    if body is None:
        return None
    # start-up: marshal reads the entry (built into Python; JSON would be slower to load)
    import marshal

    try:
        stored, written_ns, sure, parts = marshal.loads(body)
        if stored != version or not isinstance(parts, dict) or not _PARTS <= set(parts):
            return None
        if sure is not True and written_ns - version[_MTIME] < cachefile.RACY_SECONDS * 10**9:
            return None
        return {**parts, _WRITTEN: (written_ns, sure)}
    except (ValueError, EOFError, TypeError):
        return None


_PARTS = {"show", "names", "pin", "state"}  # and any text kept since (``Reading.text``)
_WRITTEN = "\0written"  # when the entry was first written, and whether by the writer (``keep_written``)


def keep(version: tuple[Any, ...] | None, state: State) -> None:
    """Keep ``state``, read and checked from the file while it was ``version`` (and still is): only
    when it would be trusted (the file last changed long enough ago)."""
    if version is None:
        return
    now = time_ns()
    if now - version[_MTIME] < cachefile.RACY_SECONDS * 10**9 or version_of(version[0]) != version:
        return
    _write(version, now, False, state)


def _write(version: tuple[Any, ...], now: int, sure: bool, state: State) -> None:
    whole = cachefile.marshalled(state.dump())
    pin = state.pin
    body = None if whole is None else cachefile.marshalled(
        (version, now, sure, {"show": shown(state), "names": names_of(state),
                              "pin": [pin.path, pin.content_hash, pin.adopt, pin.param_overrides],
                              "state": whole}))
    if body is not None:
        entry = _entry(version)
        cachefile.write_checked(entry, FORMAT, body)
        _prune(entry)


_TICKS = 40  # at most this many waits of _TICK seconds for the file system's clock to pass a write
_TICK = 0.001


def keep_written(store: Store) -> None:
    """Keep the state a command has just committed (``Store.committed``), so that a reading right
    after it is as fast as any other; never when that is not sure (then the reading reads the
    file, as before).

    The entry is trusted at once, where a reading command's own is trusted only once the file is
    ``RACY_SECONDS`` old, because it is written under SQLite's write lock, with nothing in the
    ``-wal`` (checkpointed into the file), no other connection's commit since this one's
    (``data_version``), the file's header as this connection wrote it (``_as_connected``), and
    only once the file system's clock is past the file's last change:
    the ``-wal`` beside it, touched then, gets a later modification and change time than the
    file. Any change of the file after that (another command, an edit by ``sqlite3``, a copy over
    it, even in the same tick of the clock that stamped this command's write) gives it a later
    change time, which the kernel sets and no program can set back: another version. A command
    killed between its commit and this keeps nothing, and the reading reads the file."""
    if store.conn.in_transaction or not cachefile.enabled():
        return
    # start-up: SQLite's errors are the module the store loaded
    from interpreter.campaign.files import sqlite3

    conn = store.conn
    path = store.path
    try:
        state = store.committed()
        if state is None or not store.exact():
            return
        timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute("PRAGMA busy_timeout = 0")  # another command reading or writing: keep nothing, never wait
        try:
            folded = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if folded is None or folded[0]:
                return  # a reader holds an older snapshot: the log is not folded into the file
            conn.execute("BEGIN IMMEDIATE")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        try:
            if store.committed() is not state:
                return  # another connection committed since
            version = version_of(path)
            if version is None or not _as_connected(conn, version) or not _clock_past(path, version):
                return
            _write(version, time_ns(), True, state)
        finally:
            conn.execute("ROLLBACK")
    except (OSError, sqlite3.Error, MprError):
        return  # nothing kept: the reading reads the file


def _as_connected(conn: Any, version: tuple[Any, ...]) -> bool:
    """Whether the file is the one the connection wrote, as far as its header tells: the same
    token, page count and size (a copy of another campaign over it meanwhile is not)."""
    header = version[_HEADER_AT]
    token, pages, size = (conn.execute(f"PRAGMA {name}").fetchone()[0]
                          for name in ("user_version", "page_count", "page_size"))
    return (len(header) == _HEADER and int.from_bytes(header[60:64], "big") == token
            and int.from_bytes(header[28:32], "big") == pages and version[3] == pages * size)


def _clock_past(path: str, version: tuple[Any, ...]) -> bool:
    """Whether the file system's clock is past the modification and change times of ``version``
    (the ``-wal`` beside the file touched now gets later ones), waiting a few of its ticks; and
    the file still that version."""
    wal = path + "-wal"
    for _ in range(_TICKS):
        os.utime(wal)
        st = os.stat(wal)
        if st.st_mtime_ns > version[_MTIME] and st.st_ctime_ns > version[_CTIME]:
            return version_of(path) == version
        sleep(_TICK)
    return False


def _prune(kept: str) -> None:
    """Drop the states kept longest ago past ``MAX_KEPT_CAMPAIGNS`` (never ``kept``, just written)."""
    # start-up: the limit is read only when a state is kept
    from interpreter.campaign import limits

    cachefile.prune(os.path.dirname(kept), lambda name: name.startswith("campaign-") and name.endswith(".bin"),
                    limits.MAX_KEPT_CAMPAIGNS, os.path.basename(kept))


def open_reading(path: str) -> "Reading | Store":
    """The campaign at ``path`` for a command that only reads it: what is kept for this version
    of the file, else the file opened (``Store.open``, read only) and its state kept."""
    version = version_of(path)
    parts = kept_parts(version)
    if parts is not None and version is not None:
        return Reading(path, parts, version)
    # start-up: SQLite and the store load only when the file itself is read
    from interpreter.campaign.store import Store

    store = Store.open(path, readonly=True)
    if version is not None and store.exact():
        try:
            keep(version, store.load())
        except BaseException:
            store.close()
            raise
    return store


class Reading:
    """A campaign file read through what is kept of it: what a reading command asks of ``Store``
    (``path``, ``load``, ``entries``), and the parts ``show`` and ``log`` print (``part``,
    ``pin``). The journal is read from the file itself when asked for; if the file changed
    meanwhile, it is opened and checked again, as ``Store.open`` does."""

    def __init__(self, path: str, parts: dict[str, Any], version: tuple[Any, ...]) -> None:
        self.path = path
        self._parts = parts
        self._version = version
        self._state: State | None = None
        self._store: Store | None = None

    def part(self, name: str) -> Any:
        """The kept part ``name`` (``show``, ``names``): the reader's own copy."""
        # start-up: marshal is loaded already (kept_parts)
        import marshal

        if self._store is not None:  # the file changed while it was read: its parts
            return {"show": shown, "names": names_of}[name](self._store.load())
        return marshal.loads(marshal.dumps(self._parts[name]))

    def pin(self) -> Pin:
        """The pin as far as the ruleset check reads it (its path, content hash and switches)."""
        if self._store is not None:
            return self._store.load().pin
        path, content_hash, adopt, overrides = self._parts["pin"]
        return Pin(path, content_hash, adopt, overrides, {}, {}, {}, "")

    def text(self, name: str, make: Callable[[], str]) -> str:
        """The text ``name`` made of this version's state by ``make()`` (the output of ``export``
        in one format): kept with the state the first time it is made, read back after."""
        if self._store is None:
            found = self._parts.get(name)
            if isinstance(found, str):
                return found
        value = make()
        if self._store is None and version_of(self.path) == self._version:
            parts = {key: part for key, part in self._parts.items() if key != _WRITTEN}
            body = cachefile.marshalled((self._version, *self._parts[_WRITTEN], {**parts, name: value}))
            if body is not None:
                cachefile.write_checked(_entry(self._version), FORMAT, body)
        return value

    def load(self) -> State:
        if self._store is not None:
            return self._store.load()
        if self._state is None:
            # start-up: marshal is loaded already (kept_parts)
            import marshal

            self._state = State.from_dump(marshal.loads(self._parts["state"]))
        return self._state

    def entries(self, last: int | None = None) -> list[Entry]:
        if self._store is None:
            # start-up: SQLite loads only when the journal is read
            from interpreter.campaign import files, integrity

            found: list[Entry] | None = None
            try:
                conn = files.connect_readonly(self.path)
            except files.sqlite3.Error:
                conn = None  # read as any other version below
            if conn is not None:
                try:
                    found = integrity.journal_entries(conn, self.path, last)
                except MprError:
                    if version_of(self.path) == self._version:
                        raise  # damaged where the journal is: as the file was read
                finally:
                    conn.close()
            if found is not None and version_of(self.path) == self._version:
                return found
            # start-up: the store loads only when the file changed while it was read
            from interpreter.campaign.store import Store

            self._store = Store.open(self.path, readonly=True)  # changed: read as any other version
        return self._store.entries(last)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> "Reading":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
