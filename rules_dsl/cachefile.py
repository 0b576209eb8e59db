"""Cache files written whole or not at all, shared by the stored parser tables, the ruleset cache
and small data read from one file (no import beyond the standard library, so any command may use
it at no start-up cost).

The cache lives in ``$MPRULES_CACHE_DIR``, else ``$XDG_CACHE_HOME/mprules``, else
``~/.cache/mprules``; ``MPRULES_NO_CACHE=1`` (or ``mprules --no-cache``) turns it off.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from time import time_ns

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from pathlib import Path

DISABLE_ENV = "MPRULES_NO_CACHE"
DIR_ENV = "MPRULES_CACHE_DIR"
_disabled = False


def sha256(data: bytes = b"") -> Any:
    """A SHA-256 hash object, from the interpreter's built-in implementation when it has one (it
    loads in a fraction of a millisecond; ``hashlib`` loads OpenSSL, several milliseconds, which a
    command that only checks its cache should not pay). The digests are the same."""
    try:
        from _sha256 import sha256 as builtin  # type: ignore[import-not-found]  # start-up: CPython 3.11's built-in SHA-256
    except ImportError:
        try:
            from _sha2 import sha256 as builtin  # type: ignore[import-not-found]  # start-up: its name from CPython 3.12 on
        except ImportError:
            from hashlib import sha256 as builtin  # start-up: any other Python
    return builtin(data)


def disable() -> None:
    """Turn the cache off for this process (``mprules --no-cache``)."""
    global _disabled
    _disabled = True


def enabled() -> bool:
    return not _disabled and os.environ.get(DISABLE_ENV, "").strip() not in ("1", "true", "yes")


def cache_root() -> str:
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mprules")


_stamp: str | None = None  # this process's code stamp: the code does not change under a running command


def code_stamp() -> str:
    """What tells this mprules's code from any other, for caches of what the code computes: an
    entry kept under another stamp is never read.

    Installed (``pip install .``), the packages sit beside ``mprules-VERSION.dist-info``, whose
    ``RECORD`` every install and upgrade writes again: its size and time stand for the code. A
    checkout (a clone, or an editable install, where the code is edited in place) has no such
    folder beside it, and the size and time of every source file are the stamp."""
    global _stamp
    if _stamp is None:
        _stamp = stamp_of(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return _stamp


def stamp_of(root: str) -> str:
    """The code stamp of the mprules whose packages are in the folder ``root``."""
    try:
        records = sorted(os.path.join(root, e.name, "RECORD") for e in os.scandir(root)
                         if e.name.startswith("mprules-") and e.name.endswith(".dist-info"))
        found = [f"{r} {st.st_size} {st.st_mtime_ns}" for r in records for st in (os.stat(r),)]
    except OSError:
        found = []
    kind = f"installed {' '.join(found)}" if found else f"checkout {_source_times(root)}"
    return f"{kind} python {sys.version_info[0]}.{sys.version_info[1]}"


def _source_times(root: str) -> str:
    """The name, size and modification time of every source file of mprules under ``root``."""
    parts: list[str] = []
    pending = [os.path.join(root, "interpreter"), os.path.join(root, "rules_dsl")]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.endswith((".py", ".lark")):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                parts.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")
            elif name != "__pycache__" and entry.is_dir():
                pending.append(entry.path)
    parts.sort()
    digest: str = sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return digest


TEMPORARY = ".tmp"  # the end of the name of a file being written (left behind by a write cut short)
DERIVED_FORMAT = b"MPRD1"
RACY_SECONDS = 2  # a file changed this close to an entry's writing is read again (every cache)


def derived(source: str, label: str, make: Callable[[], Any]) -> Any:
    """``make()``, a value computed from the file ``source`` alone, kept in the cache and used
    again while the file keeps its path, size and modification time (and was not changed within
    ``RACY_SECONDS`` of the entry's writing, when an edit may leave both as they were).

    The entry is the value in ``marshal``'s format (built into Python: reading it imports nothing,
    unlike JSON) after a format tag and a CRC-32 of the rest; a damaged entry, one written by
    another Python, or a value marshal cannot hold exactly is simply recomputed."""
    # start-up: only the commands that keep derived data load zlib and marshal
    import marshal
    import zlib

    if not enabled():
        return make()
    try:
        st = os.stat(source)
        where = os.path.abspath(source)
        stamp = (where, st.st_size, st.st_mtime_ns, label, marshal.version, tuple(sys.version_info[:2]))
        name = f"{label}-{zlib.crc32(where.encode('utf-8', 'surrogatepass')):08x}.bin"
    except (OSError, ValueError):
        return make()
    path = os.path.join(cache_root(), name)
    body = read_checked(path, DERIVED_FORMAT)
    try:
        if body is not None:
            stored_stamp, written_ns, value = marshal.loads(body)
            if stored_stamp == stamp and written_ns - st.st_mtime_ns >= RACY_SECONDS * 10**9:
                return value
    except (ValueError, EOFError, TypeError):
        pass
    value = make()
    body = marshalled((stamp, time_ns(), value))
    if body is not None:
        write_checked(path, DERIVED_FORMAT, body)
    return value


def marshalled(value: Any) -> bytes | None:
    """``value`` in ``marshal``'s format, or None when marshal cannot hold it exactly."""
    # start-up: marshal loads only when a cache entry is written
    import marshal

    try:
        body = marshal.dumps(value)
        return body if marshal.loads(body) == value else None
    except (ValueError, EOFError, TypeError):
        return None


def read_checked(path: str, tag: bytes, max_bytes: int | None = None) -> bytes | None:
    """The body of the cache file ``path`` that ``write_checked`` wrote with ``tag``: None when
    it is missing, larger than ``max_bytes``, of another format or damaged (its CRC-32)."""
    # start-up: zlib loads only when a cache file is read
    import zlib

    head = len(tag) + 4  # the tag, then the CRC-32 of the body
    try:
        with open(path, "rb") as handle:
            blob = handle.read() if max_bytes is None else handle.read(head + max_bytes + 1)
    except OSError:
        return None
    body = blob[head:]
    if max_bytes is not None and len(body) > max_bytes:
        return None
    return body if blob[:head] == tag + zlib.crc32(body).to_bytes(4, "big") else None


def write_checked(path: str, tag: bytes, body: bytes) -> None:
    """Write ``body`` whole (``write_atomically``) after ``tag`` and its CRC-32."""
    # start-up: zlib loads only when a cache file is written
    import zlib

    write_atomically(path, tag + zlib.crc32(body).to_bytes(4, "big") + body)


def write_atomically(path: str | Path, blob: bytes) -> None:
    """Write a cache file whole or not at all (a file of this process's own renamed over it), so
    readers never see half a file and two writers never mix; a read-only or full disk leaves no
    cache, no error."""
    try:
        target = os.fspath(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        temporary = f"{target}.{os.getpid()}-{time_ns()}{TEMPORARY}"  # this process's own: never there yet
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(blob)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return


def hashed_name(name: str, suffix: str) -> bool:
    """Whether ``name`` is a SHA-256 in hex followed by ``suffix`` (an entry a cache keyed)."""
    return len(name) == 64 + len(suffix) and name.endswith(suffix) \
        and all(c in "0123456789abcdef" for c in name[:64])


def prune(folder: str, belongs: Callable[[str], bool], limit: int, kept: str | None = None) -> None:
    """Remove the files of ``folder`` whose names ``belongs`` accepts, the oldest written first,
    beyond ``limit`` of them, counting ``kept`` (the name of the one just written, never removed).
    Another process may remove the same files: never an error."""
    try:
        with os.scandir(folder) as found:
            entries = [(e.stat().st_mtime_ns, e.path) for e in found if e.name != kept and belongs(e.name)]
    except OSError:
        return
    for _, path in sorted(entries)[:max(0, len(entries) + (kept is not None) - limit)]:
        try:
            os.unlink(path)
        except OSError:
            pass


def listing(directory: str, patterns: Iterable[str]) -> list[str]:
    """The files of ``directory`` the patterns match (``**`` reaches sub-folders): what a cache
    of the files read from a folder records and compares."""
    # start-up: glob (and fnmatch, contextlib) loads only when a listing must be read again
    import glob

    root = glob.escape(directory)
    found = {os.path.normpath(p) for pattern in patterns
             for p in glob.glob(os.path.join(root, pattern), recursive=True, include_hidden=True)
             if os.path.isfile(p)}
    return sorted(found)


def folder_time(directory: str, patterns: Iterable[str]) -> int | None:
    """The modification time of ``directory`` when it alone decides what the patterns match: every
    pattern names files of the folder itself (no ``/``, no ``**``), so any file added, removed or
    renamed there changes that time. None (the listing is always read again) otherwise."""
    if any("/" in p or os.sep in p or "**" in p for p in patterns):
        return None
    try:
        return os.stat(directory).st_mtime_ns
    except OSError:
        return None
