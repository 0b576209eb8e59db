"""What ``mprules diff``, ``mprules doc`` and ``mprules prob`` wrote, kept in the cache and written
again while nothing it was made from changed, so a warm command only stats files and writes the
text (``prob``'s ``--input`` file is one of the files it was made from).

An entry (``<cache>/<sha256 of the key>.out``) is keyed by everything the output depends on: the
mprules code (its version and ``cachefile.code_stamp``), the working directory, the verb and every
argument as given and as its real path, the options and the language. It holds the key again
(another key never matches), the stamps of every file the output was made from (every file of
the rulesets read, both extends graphs, and the schemas: path, SHA-256, size and modification
time; the listings of the rulesets' directories), the text and the exit status. The stamps are
those of the ruleset cache (``interpreter.ruleset.cache``): a file is unchanged when its size and
time are the recorded ones and it was last modified at least ``RACY_SECONDS`` before the command
that wrote the entry started, else when its content has the recorded hash.

Only a command that ended normally is kept (a ruleset with errors raises before anything is
kept), only outputs of at most ``MAX_KEPT_OUTPUT_BYTES``, only when every rule's kind is one of
mprules' own (a kind of another package may change without mprules knowing), and never when a
file changed while the command ran. At most ``MAX_KEPT_OUTPUTS`` entries are kept, the oldest
written removed first. The text is kept, not its bytes: written to the same standard output, its
encoding gives the same bytes. The entry is ``marshal`` (built into Python, so reading it imports
nothing) after a format tag and the SHA-256 of the rest; a damaged, foreign or unreadable entry is
ignored and written again, a cache that cannot be written is no cache, never an error.

Reading an entry imports nothing beyond what every command loads (no YAML, no JSON, no ruleset
model): that is what makes a warm ``diff`` or ``doc`` as fast as starting Python a few times.
"""
from __future__ import annotations

import marshal
import os
from time import time_ns

from rules_dsl import cachefile
from rules_dsl.cachefile import RACY_SECONDS, folder_time, listing, sha256, write_atomically

from interpreter.reports import limits

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from interpreter.ruleset.model import Ruleset

FORMAT = b"MPRO1"
SUFFIX = ".out"
_SLACK = 1024 * 1024  # room in an entry for its key and stamps beside the text
__all__ = ["Asked", "Kept", "place"]


def place(path: str | None) -> tuple[str, str] | None:
    """A path argument as given and as its real path (a link pointed elsewhere is another key)."""
    return None if path is None else (path, os.path.realpath(path))


class Kept:
    """A kept output: its ``text``, the files it was made from (``reads``), its exit ``status``."""

    __slots__ = ("reads", "status", "text")
    text: str
    reads: list[str]
    status: int

    def __init__(self, text: str, reads: list[str], status: int) -> None:
        self.text, self.reads, self.status = text, reads, status


class Asked:
    """One command's output as it is asked for: ``found()`` gives it when it is kept and still
    true, ``keep(...)`` keeps it. ``asked`` is everything it depends on beyond the files (the
    verb, the arguments, the options, the language), as values ``repr`` writes exactly."""

    __slots__ = ("entry", "key", "started_ns")
    entry: str | None
    key: str | None
    started_ns: int

    def __init__(self, *asked: Any) -> None:
        self.started_ns = time_ns()  # a file changed after this is not in the output
        self.key = self.entry = None
        if not cachefile.enabled():
            return
        try:
            # start-up: the package root is loaded already (the version)
            from interpreter import __version__

            key = repr((FORMAT, __version__, cachefile.code_stamp(), os.getcwd(), asked))
            digest = sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
            self.entry = os.path.join(cachefile.cache_root(), digest + SUFFIX)
            self.key = key
        except (OSError, ValueError):
            return  # no working directory: no cache

    def found(self) -> Kept | None:
        """The kept output when its entry is sound, its key this one and every stamp true."""
        if self.entry is None:
            return None
        try:
            with open(self.entry, "rb") as handle:
                blob = handle.read(len(FORMAT) + 32 + limits.MAX_KEPT_OUTPUT_BYTES + _SLACK + 1)
            head = len(FORMAT) + 32
            body = blob[head:]
            if len(body) > limits.MAX_KEPT_OUTPUT_BYTES + _SLACK or blob[:len(FORMAT)] != FORMAT \
                    or sha256(body).digest() != blob[len(FORMAT):head]:
                return None
            key, stamps, text, reads, status = marshal.loads(body)
            if key != self.key or not isinstance(text, str) or not isinstance(status, int):
                return None
            true, fresh = _checked(stamps, self.started_ns)
            if not true:
                return None
            if fresh is not None:
                self._write((key, fresh, text, reads, status))
            return Kept(text, list(reads), status)
        except (OSError, ValueError, TypeError, EOFError, IndexError, KeyError):
            return None

    def keep(self, text: str, rulesets: Iterable[Ruleset], status: int = 0, also: Iterable[str] = ()) -> None:
        """Keep ``text`` (what the command writes, ending in ``status``) made from ``rulesets`` and
        the files ``also`` (an input file)."""
        if self.entry is None or not cachefile.enabled():
            return
        rulesets = list(rulesets)
        if len(text.encode("utf-8", "surrogatepass")) > limits.MAX_KEPT_OUTPUT_BYTES \
                or not _own_kinds_only(rulesets):
            return
        reads = sorted({f for ruleset in rulesets for f in ruleset.files} | {os.path.realpath(f) for f in also})
        stamps = _stamps(reads, rulesets, self.started_ns)
        if stamps is None:
            return
        if self._write((self.key, stamps, text, reads, status)):
            _prune(os.path.dirname(self.entry), os.path.basename(self.entry))

    def _write(self, entry: tuple) -> bool:
        body = cachefile.marshalled(entry)
        if self.entry is None or body is None or len(body) > limits.MAX_KEPT_OUTPUT_BYTES + _SLACK:
            return False
        write_atomically(self.entry, FORMAT + sha256(body).digest() + body)
        return True


def _own_kinds_only(rulesets: list[Ruleset]) -> bool:
    """Whether every rule's kind is one of mprules' own package (whose code the code stamp
    covers); a kind of another package may change while mprules stays the same."""
    # start-up: the registry is loaded already by the command that made the output
    from interpreter.engine import registry

    for ruleset in rulesets:
        for rule in ruleset.rules.values():
            kind = registry.get(rule.kind)
            if kind is None or not str(getattr(kind.run, "__module__", "")).startswith(
                    registry.BUILTIN_PACKAGE + "."):
                return False
    return True


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            digest: str = sha256(handle.read()).hexdigest()
            return digest
    except OSError:
        return None


def _stamps(reads: list[str], rulesets: list[Ruleset], started_ns: int) -> tuple | None:
    """(started_ns, files, listings): every file read and every schema, as (path, SHA-256, size,
    modification time), and every ruleset directory's listing; None when one of them changed
    since the command started (the output may hold the old content or the new)."""
    # start-up: the schemas' place and the listing's glob load only when an output is kept
    from interpreter.documents.resources import schemas_dir

    names = sorted(set(reads) | {str(p) for p in schemas_dir().rglob("*.json")})
    files = []
    for name in names:
        try:
            st = os.stat(name)
        except OSError:
            return None
        digest = _digest(name)
        if digest is None or st.st_mtime_ns >= started_ns:
            return None
        files.append((name, digest, st.st_size, st.st_mtime_ns))
    listings = []
    for directory, globs in sorted({(d, tuple(g)) for r in rulesets for d, g in r.listings.items()}):
        listed = listing(directory, globs)
        folder_ns = folder_time(directory, globs)
        try:
            if any(os.stat(p).st_mtime_ns >= started_ns for p in listed):
                return None
        except OSError:
            return None
        if folder_ns is not None and folder_ns >= started_ns:
            return None
        listings.append((directory, globs, tuple(listed), folder_ns))
    return (started_ns, tuple(files), tuple(listings))


def _checked(stamps: tuple, now_ns: int) -> tuple[bool, tuple | None]:
    """Whether every file keeps its content and every listing its files, as the ruleset cache
    decides: by size and time when they are the recorded ones and were not too close to the
    entry's command, else by the content's hash, or by listing the folder again. When some were
    decided the slow way, also the stamps to write instead (as of ``now_ns``, before anything was
    read), so that the next command decides them by size and time."""
    started_ns, files, listings = stamps
    settled = started_ns - RACY_SECONDS * 1_000_000_000
    slow = False
    fresh_files = []
    for name, digest, size, mtime_ns in files:
        try:
            st = os.stat(name)
        except OSError:
            return False, None
        if not (st.st_size == size and st.st_mtime_ns == mtime_ns and mtime_ns < settled):
            if _digest(name) != digest:
                return False, None
            slow = True
        fresh_files.append((name, digest, st.st_size, st.st_mtime_ns))
    fresh_listings = []
    for directory, globs, listed, folder_ns in listings:
        try:
            now_folder = os.stat(directory).st_mtime_ns if folder_ns is not None else None
        except OSError:
            return False, None
        if folder_ns is None or now_folder != folder_ns or folder_ns >= settled:
            if tuple(listing(directory, globs)) != tuple(listed):
                return False, None
            slow = True
        fresh_listings.append((directory, globs, listed, now_folder))
    return True, ((now_ns, tuple(fresh_files), tuple(fresh_listings)) if slow else None)


def _prune(folder: str, kept: str) -> None:
    """Remove the oldest written outputs beyond ``MAX_KEPT_OUTPUTS``, never ``kept``."""
    cachefile.prune(folder, lambda name: cachefile.hashed_name(name, SUFFIX), limits.MAX_KEPT_OUTPUTS, kept)