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
from time import time_ns

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

FORMAT = b"MPRK1"  # the tag of a kept campaign state


def version_of(path: str) -> tuple[Any, ...] | None:
    """What tells this version of the campaign file from any other; None when it cannot be kept
    (the cache is off, the file cannot be read, or a ``-journal`` or a ``-wal`` that holds
    anything is beside it)."""
    if not cachefile.enabled():
        return None
    try:
        st = os.stat(path)
        where = os.path.abspath(path)
    except (OSError, ValueError, TypeError):
        return None
    if os.path.lexists(path + "-journal") or _size(path + "-wal"):
        return None
    return (where, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
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
        stored, written_ns, parts = marshal.loads(body)
        if stored != version or written_ns - version[4] < cachefile.RACY_SECONDS * 10**9 \
                or not isinstance(parts, dict) or not _PARTS <= set(parts):
            return None
        return {**parts, _WRITTEN: written_ns}
    except (ValueError, EOFError, TypeError):
        return None


_PARTS = {"show", "names", "pin", "state"}  # and any text kept since (``Reading.text``)
_WRITTEN = "\0written"  # the time the entry was first written (not kept in its parts)


def keep(version: tuple[Any, ...] | None, state: State) -> None:
    """Keep ``state``, read and checked from the file while it was ``version`` (and still is): only
    when it would be trusted (the file last changed long enough ago)."""
    if version is None:
        return
    now = time_ns()
    if now - version[4] < cachefile.RACY_SECONDS * 10**9 or version_of(version[0]) != version:
        return
    whole = cachefile.marshalled(state.dump())
    pin = state.pin
    body = None if whole is None else cachefile.marshalled(
        (version, now, {"show": shown(state), "names": names_of(state),
                        "pin": [pin.path, pin.content_hash, pin.adopt, pin.param_overrides],
                        "state": whole}))
    if body is not None:
        entry = _entry(version)
        cachefile.write_checked(entry, FORMAT, body)
        _prune(entry)


def _prune(kept: str) -> None:
    """Drop the states kept longest ago past ``MAX_KEPT_CAMPAIGNS`` (never ``kept``, just written)."""
    # start-up: the limit is read only when a state is kept
    from interpreter.campaign import limits

    most = limits.MAX_KEPT_CAMPAIGNS
    folder = os.path.dirname(kept)
    try:
        found = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(folder)
                 if e.name.startswith("campaign-") and e.name.endswith(".bin") and e.path != kept]
    except OSError:
        return
    for _, path in sorted(found)[:max(0, len(found) + 1 - most)]:
        try:
            os.unlink(path)
        except OSError:
            pass  # another command dropped it


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
            body = cachefile.marshalled((self._version, self._parts[_WRITTEN], {**parts, name: value}))
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
