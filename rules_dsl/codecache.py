"""Compiled expressions kept between commands: the generated code of each expression text that
compiled without a finding, so that the next command using the same text runs it without loading
the parser, the checker or the code generator, and without compiling anything.

The store is one file of the cache directory (``rules_dsl.cachefile``), ``expressions.bin``: a
format tag and a CRC-32 of the rest, then the code stamp of the mprules that wrote it
(``cachefile.code_stamp``: another mprules, or another Python, reads nothing of it) and by key the
entry in ``marshal``'s format. A damaged file is ignored (everything is compiled again), never run;
an entry is decoded only when a command asks for its text. The command line writes what it compiled when it ends
(``flush``); two commands ending at once may lose each other's new entries, never mix them (the
file is written whole, then renamed). The file keeps at most ``MAX_CACHED_EXPRESSIONS`` entries and
``MAX_CODE_CACHE_BYTES`` bytes, the oldest dropped first.

An entry is ``(names, has_dice, links, fields)``: the free names of the text, whether it rolls dice,
its generated functions as data (``rules_dsl.generated.links``) or None when it has none, and the
``(root, name)`` pairs of its ``root.name`` (``Expression.fields``)."""
from __future__ import annotations

import marshal
import os
import types

from . import cachefile
from .limits import MAX_CACHED_EXPRESSIONS, MAX_CODE_CACHE_BYTES

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

FORMAT = b"MPRX2"
FILE_NAME = "expressions.bin"
_known: dict[str, bytes] | None = None  # the entries read from the file, by key
_new: dict[str, bytes] = {}  # the entries this process compiled, to be written by flush()


def key(text: str, names: frozenset[str] | None) -> str:
    """The key of ``text`` compiled with the root names ``names`` (None: any name)."""
    return text + ("\0*" if names is None else "\0" + "\0".join(sorted(names)))


def path() -> str:
    return os.path.join(cachefile.cache_root(), FILE_NAME)


def lookup(k: str) -> tuple[Any, ...] | None:
    """The entry kept under ``k``: None when there is none, when it is damaged, or when the cache
    is off."""
    global _known
    if not cachefile.enabled():
        return None
    if _known is None:
        _known = _read()
    blob = _known.get(k)
    if blob is None:
        return None
    try:
        entry = marshal.loads(blob)
    except (ValueError, EOFError, TypeError):
        return None
    return entry if _well_formed(entry) else None


def remember(k: str, entry: tuple[Any, ...]) -> None:
    """Keep ``entry`` under ``k`` for the next commands (written by ``flush``); an entry that
    ``marshal`` cannot hold exactly (a fraction among its constants) is not kept."""
    if not cachefile.enabled():
        return
    blob = cachefile.marshalled(entry)
    if blob is not None:
        _new.pop(k, None)
        _new[k] = blob
        if len(_new) > MAX_CACHED_EXPRESSIONS:  # a long process (the editor's server) keeps the newest
            del _new[next(iter(_new))]


def flush() -> None:
    """Write the entries compiled since the last flush into the file, with those it holds now (read
    again: another command may have added some), the oldest dropped beyond the limits. A cache
    that cannot be written is no cache, never an error."""
    global _known
    if not _new or not cachefile.enabled():
        return
    entries = {k: v for k, v in _read().items() if k not in _new}
    entries.update(_new)
    keys = list(entries)[-MAX_CACHED_EXPRESSIONS:]
    size, kept = 0, len(keys)
    while kept and size + len(entries[keys[kept - 1]]) + len(keys[kept - 1]) <= MAX_CODE_CACHE_BYTES:
        kept -= 1
        size += len(entries[keys[kept]]) + len(keys[kept])
    body = marshal.dumps((cachefile.code_stamp(), {k: entries[k] for k in keys[kept:]}))
    _new.clear()
    _known = None
    cachefile.write_checked(path(), FORMAT, body)


def _read() -> dict[str, bytes]:
    """The file's entries by key; none when it is missing, damaged, too large or written by
    another mprules."""
    body = cachefile.read_checked(path(), FORMAT, MAX_CODE_CACHE_BYTES + 4096)  # the keys and stamp besides
    if body is None:
        return {}
    try:
        stamp, entries = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return {}
    if stamp != cachefile.code_stamp() or not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, bytes)}


def _well_formed(entry: Any) -> bool:
    """``(names, has_dice, links, fields)`` with links None or a tuple of (code, constants,
    defaults) and fields a tuple of pairs of texts."""
    if not (isinstance(entry, tuple) and len(entry) == 4 and isinstance(entry[0], tuple)
            and isinstance(entry[1], bool) and isinstance(entry[3], tuple) and all(
                isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
                for pair in entry[3])):
        return False
    links = entry[2]
    return links is None or (isinstance(links, tuple) and all(
        isinstance(link, tuple) and len(link) == 3 and isinstance(link[0], types.CodeType)
        and isinstance(link[1], dict) for link in links))
