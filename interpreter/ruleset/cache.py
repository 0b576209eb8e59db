"""A disk cache of loaded and checked rulesets, so a command on an unchanged ruleset skips reading
YAML, validating schemas and running the semantic checks.

An entry is keyed by what was asked (the ruleset's path, the working directory that its messages'
paths are relative to, the caller's parameter overrides and adoption switches). It holds a header
(the content hash of every file the ruleset was built from: every layer's manifest and rule files,
the schemas; the listing of every layer's directory; the ruleset's own content hash) and then the
ruleset. The header alone answers ``content_hash`` (a campaign checking the ruleset it pinned
reads no more than that).
It is used only when all of them are unchanged and the mprules code is the same (its version and,
in a checkout, the size and time of its source files). A file is known unchanged without reading
it when its size and modification time are those recorded and it was last modified at least
``RACY_SECONDS`` before the entry was written (as git and make decide); any other file is hashed
again and compared. Entries are written to a temporary file
and renamed, so two processes may write at once; an entry that is damaged (its checksum does not
match, for the header or the ruleset) or from another format is ignored and rebuilt, never
trusted. Only rulesets without errors
are cached.

The cache lives in ``$MPRULES_CACHE_DIR``, else ``$XDG_CACHE_HOME/mprules``, else
``~/.cache/mprules``; ``MPRULES_NO_CACHE=1`` (or ``mprules --no-cache``) turns it off (both are
decided in ``rules_dsl.cachefile``).
"""
from __future__ import annotations

import os
import time
from collections.abc import Mapping

from rules_dsl import cachefile
from rules_dsl.cachefile import DIR_ENV, DISABLE_ENV, folder_time, listing, sha256, write_atomically

from interpreter.documents.plain import FlatOnUse


TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from interpreter.ruleset.model import Ruleset

FORMAT = b"MPRCB"
RACY_SECONDS = cachefile.RACY_SECONDS  # a file changed this close to the entry's writing is hashed again
MAX_ENTRY_BYTES = 64 * 1024 * 1024
KEPT = ".kept"  # the suffix of a result kept for a ruleset (``kept``), pruned apart from the rulesets
MAX_KEPT_RESULTS = 256  # validate and test of every bundled ruleset, in two languages, several times over
__all__ = ["DIR_ENV", "DISABLE_ENV", "cache_dir", "content_hash", "disable", "enabled", "kept", "load", "load_kept"]
disable = cachefile.disable
enabled = cachefile.enabled


def cache_dir() -> Path:
    # start-up: pathlib is for callers that want a Path; this module works with text paths
    from pathlib import Path

    return Path(cachefile.cache_root())


def _entry(path: str | Path | None, param_overrides: dict | None, adopt: dict | None,
           given_as: str | None) -> str:
    return os.path.join(cachefile.cache_root(), f"{_key(path, param_overrides, adopt, given_as)}.bin")


_HOLDING = [0]  # > 0 while a command holds two rulesets at once (``holding_two``): no new entry


class holding_two:
    """``with holding_two():`` around loading two rulesets that one command holds at once (a
    comparison): entries already kept are read, none is written, since writing one costs memory
    beside the rulesets' own (two big rulesets and an entry passed 512 MB). Nested uses count."""

    def __enter__(self) -> None:
        _HOLDING[0] += 1

    def __exit__(self, *exc: object) -> None:
        _HOLDING[0] -= 1


def load(path: str | Path | None, param_overrides: dict | None, adopt: dict | None,
         build: Callable[[], Ruleset], given_as: str | None = None) -> Ruleset:
    """The ruleset from the cache when its entry is still true, else ``build()`` (stored, but
    while ``holding_two``)."""
    if not enabled():
        return build()
    try:
        entry = _entry(path, param_overrides, adopt, given_as)
    except (OSError, RuntimeError, TypeError, ValueError):
        return build()

    def rebuild() -> Ruleset:  # a rule of the entry found damaged when it was read
        fresh = build()
        _write(entry, fresh)
        return fresh

    ruleset = _true_entry(entry, rebuild)
    if ruleset is not None:
        return ruleset
    ruleset = build()
    if _worth_keeping(ruleset):
        _write(entry, ruleset)
    return ruleset


def load_kept(path: str | Path | None, param_overrides: dict | None, adopt: dict | None,
              load: Callable[[], Ruleset], given_as: str | None = None) -> Ruleset:
    """The ruleset of a true entry, else ``load()``: the caller's loading through the cache
    (``checks.loading.load_ruleset``), imported only then, so that a command on a ruleset kept
    in the cache loads none of what reads and checks one (the warm path of ``run``). A rule of
    the entry found damaged when it is read: the entry is removed, and ``load()`` reads the files."""
    if enabled():
        try:
            entry = _entry(path, param_overrides, adopt, given_as)
        except (OSError, RuntimeError, TypeError, ValueError):
            return load()

        def rebuild() -> Ruleset:
            _remove(entry)
            return load()

        ruleset = _true_entry(entry, rebuild)
        if ruleset is not None:
            return ruleset
    return load()


def _true_entry(entry: str, rebuild: Callable[[], Ruleset]) -> Ruleset | None:
    """The ruleset of ``entry`` when the entry is still true (its header written again when that
    was known only by hashing files), else None."""
    _hashed.clear()
    ruleset = _read(entry, rebuild)
    if ruleset is not None and _hashed:
        _restamped(entry)
    return ruleset


def kept(path: str | Path, purpose: str, build: Callable[[], tuple[Ruleset | None, Any]]) -> Any:
    """A result computed from the ruleset at ``path`` (the findings of ``validate``, the outcomes
    of ``test``), kept beside the rulesets while none of the ruleset's files changed: ``build()``
    gives (the ruleset it read, or None to keep nothing; the result). ``purpose`` says what the
    result is and everything else it depends on (the language, the files asked for)."""
    if not enabled():
        return build()[1]
    try:
        entry = _entry(path, None, None, f"kept: {purpose}")[:-len(".bin")] + KEPT  # never a layer's name
    except (OSError, RuntimeError, TypeError, ValueError):
        return build()[1]
    found = _read_payload(entry)
    if found is not _NOTHING:
        return found
    ruleset, result = build()
    if ruleset is not None:
        _write(entry, ruleset, result)
    return result


_keys: dict[str, str] = {}  # this process's keys: the code does not change under a running command


def _key(path: str | Path | None, param_overrides: dict | None, adopt: dict | None,
         given_as: str | None = None) -> str:
    from interpreter import __version__  # start-up: the package root imports this module's users

    if given_as is None:  # the caller's layer by its own name
        from interpreter.ruleset.layers import CALLER_LAYER  # start-up: only for a caller that names no layer

        given_as = CALLER_LAYER

    root = os.path.realpath(path) if path is not None else ""
    if param_overrides or adopt:
        # start-up: json loads only for a ruleset asked with parameters or adoption of its own
        import json

        asked = json.dumps([root, os.getcwd(), param_overrides or {}, adopt or {}, given_as],
                           sort_keys=True, default=repr, ensure_ascii=False)
    else:  # never a JSON text (those start with "["): no key of the other kind is the same
        asked = "\0".join(("plain", root, os.getcwd(), given_as))
    known = _keys.get(asked)
    if known is None:
        code = f"{__version__} {cachefile.code_stamp()}"
        known = _keys[asked] = sha256(f"{code}\n{asked}".encode()).hexdigest()
    return known


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _file_record(path: str) -> list[Any]:
    """``[path, sha256, size, mtime_ns]`` of a file (digest None when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return [path, None, -1, -1]
    return [path, _digest(path), st.st_size, st.st_mtime_ns]


_hashed: list[bool] = []  # set when a header was found true only by hashing files (``_restamped``)


def _unchanged(record: list[Any], written_ns: int) -> bool:
    """Whether the file still has the recorded content: by its size and time when they match and
    are not too close to the entry's writing, else by its hash."""
    name, digest, size, mtime_ns = record
    if digest is None:
        return False
    try:
        st = os.stat(name)
    except OSError:
        return False
    if st.st_size == size and st.st_mtime_ns == mtime_ns \
            and mtime_ns < written_ns - RACY_SECONDS * 1_000_000_000:
        return True
    _hashed.append(True)
    if _digest(name) != digest:
        return False
    record[2:] = [st.st_size, st.st_mtime_ns]  # as it is now, for _restamped
    return True


def _dependencies(ruleset: Ruleset) -> dict[str, Any]:
    # start-up: interpreter.documents.resources loads only when _dependencies() runs
    from interpreter.documents.resources import schemas_dir

    files = sorted(set(ruleset.files) | {str(p) for p in schemas_dir().rglob("*.json")})
    return {"files": [_file_record(f) for f in files], "written_ns": time.time_ns(),
            "listings": [[d, list(globs), listing(d, globs), folder_time(d, globs)]
                         for d, globs in sorted(ruleset.listings.items())]}


def _same_listing(directory: str, patterns: list[str], listed: list[str], folder_ns: int | None,
                  written_ns: int) -> bool:
    """Whether the patterns still match ``listed``: known without reading the folder when its time
    is the recorded one and not too close to the entry's writing (as for files), else read."""
    if folder_ns is not None and folder_ns < written_ns - RACY_SECONDS * 1_000_000_000:
        try:
            if os.stat(directory).st_mtime_ns == folder_ns:
                return True
        except OSError:
            return False
    return listing(directory, patterns) == listed


def _still_true(deps: dict[str, Any]) -> bool:
    written_ns = deps["written_ns"]
    checked_ns = time.time_ns()
    if not all(_unchanged(record, written_ns) for record in deps["files"]):
        return False
    if not all(_same_listing(d, globs, listed, folder_ns, written_ns)
               for d, globs, listed, folder_ns in deps["listings"]):
        return False
    if _hashed:  # the records now say what was checked, as of then (the folders' times again)
        deps["written_ns"] = checked_ns
        for listing in deps["listings"]:
            listing[3] = folder_time(listing[0], listing[1])
    return True


def _restamped(entry: str) -> None:
    """Write again the header of ``entry``, found true by hashing files changed too close to its
    writing (a ruleset edited, or installed, just before it was cached), with the times checked
    then: the next command knows the files unchanged by their size and time alone. The ruleset
    itself is copied as it is; a cache that cannot be written is left as it was."""
    _hashed.clear()
    try:
        with open(entry, "rb") as handle:
            header = _header(handle)
            if header is None or not _hashed:
                return
            head = handle.read(4)
            payload = handle.read(MAX_ENTRY_BYTES + 1)
    except (OSError, ValueError, TypeError, KeyError):
        return
    if len(payload) > MAX_ENTRY_BYTES or _checksum(_guarded(payload)) != head:
        return
    deps = header["deps"]
    if any(record[3] >= deps["written_ns"] - RACY_SECONDS * 1_000_000_000 for record in deps["files"]):
        return  # changed too recently still: written again, it would be hashed again all the same
    body = _header_bytes(header)
    write_atomically(entry, FORMAT + sha256(body).digest() + len(body).to_bytes(4, "big") + body
                     + head + payload)


def _encode(ruleset: Ruleset, result: Any = None) -> tuple[bytes, bytes]:
    """(header, payload): the dependencies and content hash (marshal), the ruleset pickled (or the
    ``result`` kept for it, when one is given)."""
    # start-up: pickle loads only when _encode() runs
    import pickle

    if result is not None:
        header = _header_bytes({"deps": _dependencies(ruleset), "content_hash": ruleset.content_hash})
        return header, _PICKLED + pickle.dumps(("kept", result), protocol=pickle.HIGHEST_PROTOCOL)

    header = _header_bytes({"deps": _dependencies(ruleset), "content_hash": ruleset.content_hash})
    kept = {rule_id: _without_compiled(rule) for rule_id, rule in ruleset.rules.items()}
    aliases = dict(getattr(ruleset.rules, "aliases", {}))
    marshalled = _marshalled(ruleset, kept, aliases)
    if marshalled is not None:
        return header, marshalled
    # Each rule is pickled on its own inside the ruleset (``Ruleset.keep_rules``): a command that
    # runs one rule unpickles that rule alone (and what it asks for).
    blobs = {rule_id: pickle.dumps(rule, protocol=pickle.HIGHEST_PROTOCOL) for rule_id, rule in kept.items()}
    plain = ruleset.kept_rules(blobs, aliases)
    return header, _PICKLED + pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL)


# The first byte of a ruleset's payload: how the rest is written. Pickled (``P``), the entry's
# checksum covers it whole; indexed (``I``: marshal), it covers the ruleset's fields and the index of
# its rules (each rule's place, size and own CRC-32), and each rule is checked when it is read: a
# command reads the rules it runs, not every byte of the ruleset (half a megabyte for the bundled
# one, 2.5 million instructions).
_PICKLED, _INDEXED = b"P", b"I"


def _worth_keeping(ruleset: Ruleset) -> bool:
    """Whether to write the entry of a ruleset just read. Not while a command holds two rulesets
    at once (``holding_two``), nor for one whose files held more than ``MAX_CACHED_VALUES`` values:
    writing an entry needs memory beside the rulesets' own (two of 500,000 values and their
    entries took 616 MB). Nor when the rules a variant's row edits folded hold more than
    ``MAX_CACHED_FOLDED_ROWS`` rows: their positions are read in place from every layer, and
    making them one dict to keep costs more time and memory than reading the files again
    (100,000 rows over 10 layers: 2 s and 150 MB more for each command that would keep them)."""
    if _HOLDING[0]:
        return False
    # start-up: these load only when an entry would be written
    from interpreter.ruleset.limits import MAX_CACHED_FOLDED_ROWS, MAX_CACHED_VALUES
    from interpreter.ruleset.merge import Folded

    if ruleset.values_read > MAX_CACHED_VALUES:
        return False
    rows = sum(len(rule.doc.get("rows") or ()) for rule in ruleset.rules.values()
               if isinstance(rule.positions, Folded) and isinstance(rule.doc.get("rows"), list))
    return rows <= MAX_CACHED_FOLDED_ROWS


def _without_compiled(rule: Any) -> Any:
    """A shallow copy of ``rule`` without its compiled expressions (made again on use)."""
    # start-up: copy loads only when an entry is written
    import copy

    from interpreter.ruleset.merge import Folded  # start-up: as copy (loaded already by a fold)

    kept = copy.copy(rule)
    for name in kept._fields:
        value = getattr(kept, name)
        if name.startswith("_") and isinstance(value, dict):
            setattr(kept, name, {})
        elif isinstance(value, (Folded, _Unread)):  # positions read in place or not yet read: a dict
            setattr(kept, name, value.plain())
    return kept


def _marshalled(ruleset: Ruleset, rules: dict[str, Any], aliases: dict[str, str]) -> bytes | None:
    """The ruleset in ``marshal``'s format (reading it back imports neither pickle nor anything
    else): its fields as data, the places of its wiring as tuples, each rule as the values of its
    fields, each rule apart (``Ruleset.kept_rules``), and what a run does not read kept apart again,
    read on first use (``_Unread``): the bases, the positions of the parameters, each rule's
    positions and written texts (``_APART``). None when something in it is not plain data marshal
    keeps exactly (it is pickled then)."""
    from interpreter.ruleset.model import Rule  # start-up: loaded already (the ruleset is one)

    def fields(rule: Any, apart: tuple[str, ...] = ()) -> tuple[Any, ...] | None:
        if type(rule) is not Rule or set(vars(rule)) != set(Rule._fields):
            return None
        values = []
        for name in Rule._fields:
            value = getattr(rule, name)
            if name in apart:
                value = _split(value)
                if value is None:
                    return None
            values.append(value)
        return tuple(values)

    own = dict(vars(ruleset))
    bases = {key: fields(_without_compiled(rule)) for key, rule in own.pop("bases", {}).items()}
    places = own.pop("campaign_at", {})
    own.pop("rules", None)
    if any(value is None for value in bases.values()) or any(
            type(place).__name__ != "Location" for place in places.values()):
        return None
    kept_apart: dict[str, Any] = {name: _split(own.pop(name)) for name in _APART_OWN if name in own}
    kept_apart["bases"] = cachefile.marshalled(bases)
    if any(value is None for value in kept_apart.values()):
        return None
    blobs, index, offset = [], {}, 0
    for rule_id, rule in rules.items():
        values = fields(rule, _APART)
        blob = cachefile.marshalled(values) if values is not None else None
        if blob is None:
            return None
        blobs.append(blob)
        index[rule_id] = (offset, len(blob), _crc(blob))
        offset += len(blob)
    body = cachefile.marshalled((Rule._fields, own, kept_apart, {k: p._values() for k, p in places.items()},
                                 index, aliases))
    if body is None:
        return None
    return _INDEXED + len(body).to_bytes(4, "big") + body + b"".join(blobs)


# What a warm run reads little of, kept apart in an entry and read on first use (``_Unread``): of
# each rule, where each value is written and the written text of each scalar (for the words of an
# error, a check, the place of an expression); of the ruleset, the positions of its parameters and
# its bases. Before, a run of the bundled rule with the most values spent 2.8 million instructions
# of its 3.5 reading the positions of that rule, and 2.6 million on those of the ruleset.
_APART = ("positions", "texts")
_APART_OWN = ("parameter_positions",)
_PREFIX = 2  # the paths of a rule's positions are kept in groups by their first two parts
_MAX_GROUPS = 1024  # past this many groups (a table of many rows), fewer parts make fewer groups:
# each group is a marshal call to write and an entry to index (100,000 rows: 1 s of a cold command)


def _split(value: Any) -> tuple[int, dict[Any, bytes]] | None:
    """A mapping of paths as ``(n, groups)``: the values of the paths that start alike (their
    first ``n`` parts, ``_PREFIX``) in ``marshal``'s format apart, so that looking up one path
    reads its group alone. When the groups would not list the paths in their order (a variant's
    edits added some later), one group (``n`` = 0) holds them all. None: not plain data."""
    plain = value.plain() if isinstance(value, _Unread) else value
    if not isinstance(plain, dict):
        return None
    groups: dict[Any, dict] = {}
    n = _PREFIX
    for key, item in plain.items():
        if type(key) is not tuple:
            n = 0
            break
        groups.setdefault(key[:n], {})[key] = item
    while n and len(groups) > _MAX_GROUPS:  # a table of many rows: fewer parts, fewer groups
        n -= 1
        fewer: dict[Any, dict] = {}
        for prefix, group in groups.items():
            fewer.setdefault(prefix[:n], {}).update(group)
        groups = fewer
    if n and [key for group in groups.values() for key in group] != list(plain):
        n = 0
    if not n:
        groups = {(): plain}
    blobs = {prefix: cachefile.marshalled(group) for prefix, group in groups.items()}
    if any(blob is None for blob in blobs.values()):
        return None
    return n, blobs  # type: ignore[return-value]


class _Unread(FlatOnUse):
    """A mapping of a ruleset read back from the cache, still in ``marshal``'s format (checked
    already, with the entry or its rule), in groups (``_split``): looking up a path reads its
    group alone; anything else (listing, changing it) makes it a plain dict, in the order it was
    written. Copied or pickled, it is a dict."""

    __slots__ = ("_groups", "_n", "_make", "_plain")

    def __init__(self, groups: dict[Any, Any], n: int = 0, make: Callable[[Any], dict] | None = None) -> None:
        self._groups = groups
        self._n = n
        self._make = make
        self._plain: dict | None = None

    def _group(self, prefix: Any) -> dict | None:
        group = self._groups.get(prefix)
        if type(group) is bytes:
            import marshal  # start-up: built in

            group = self._groups[prefix] = marshal.loads(group)
        return group

    def plain(self) -> dict:
        if self._plain is None:
            plain = {key: item for prefix in list(self._groups) for key, item in self._group(prefix).items()}  # type: ignore[union-attr]
            self._plain = self._make(plain) if self._make is not None else plain
            self._groups = {}
        return self._plain

    def get(self, key: Any, default: Any = None) -> Any:
        if self._plain is None and self._n and type(key) is tuple:
            group = self._group(key[:self._n])
            return default if group is None else group.get(key, default)
        return self.plain().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        found = self.get(key, _NOTHING)
        if found is _NOTHING:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self.get(key, _NOTHING) is not _NOTHING

    def __bool__(self) -> bool:
        return bool(self._groups) if self._plain is None and self._make is None else bool(self.plain())

    def __eq__(self, other: object) -> bool:
        return self.plain() == (other.plain() if isinstance(other, _Unread) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.plain())


class _Pending:
    """The rules of an indexed payload (``PendingRules``) with what each keeps apart (``_APART``)
    read on first use."""

    def __init__(self, pending: Any) -> None:
        self.pending = pending

    def rule(self, rule_id: str) -> Any:
        return _kept_apart(self.pending.rule(rule_id))

    def all(self) -> Any:
        rules = self.pending.all()
        for rule in rules.values():
            _kept_apart(rule)
        return rules

    def __getattr__(self, name: str) -> Any:  # what else it knows (the rules made so far)
        pending = self.__dict__.get("pending")
        if pending is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(pending, name)


def _kept_apart(rule: Any) -> Any:
    if rule is not None:
        for name in _APART:
            value = rule.__dict__.get(name)
            if type(value) is tuple:
                rule.__dict__[name] = _Unread(value[1], value[0])
    return rule


def _guarded(payload: bytes) -> bytes:
    """The part of a payload the entry's checksum covers: all of it, but the rules of an indexed
    one (each has its own)."""
    if payload[:1] != _INDEXED:
        return payload
    return payload[:5 + int.from_bytes(payload[1:5], "big")]


class _Rules(Mapping):
    """The rules of an indexed payload by id, each its blob when its CRC-32 is right, else None
    (``PendingRules`` then makes the ruleset again)."""

    __slots__ = ("payload", "start", "index")

    def __init__(self, payload: bytes, start: int, index: dict[str, tuple[int, int, int]]) -> None:
        self.payload, self.start, self.index = payload, start, index

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.index

    def __iter__(self) -> Any:
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, rule_id: str) -> bytes | None:
        offset, size, crc = self.index[rule_id]
        begin = self.start + offset
        blob = self.payload[begin:begin + size]
        return blob if len(blob) == size and _crc(blob) == crc else None


def _header_bytes(header: dict[str, Any]) -> bytes:
    """The header of an entry (its dependencies and content hash) in ``marshal``'s format."""
    # start-up: marshal loads only when a header is written
    import marshal

    return marshal.dumps(header)


def _header(handle: Any) -> dict[str, Any] | None:
    """The entry's header, when its format and checksum are right and its files unchanged."""
    head = handle.read(len(FORMAT) + 36)
    if len(head) != len(FORMAT) + 36 or not head.startswith(FORMAT):
        return None
    checksum, size = head[len(FORMAT):-4], int.from_bytes(head[-4:], "big")
    if size > MAX_ENTRY_BYTES:
        return None
    body = handle.read(size)
    if sha256(body).digest() != checksum:
        return None
    try:
        # start-up: marshal is built in (json would load a module and compile its patterns)
        import marshal

        header = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(header, dict) or not _still_true(header["deps"]):
        return None
    return header


_NOTHING = object()


def _checksum(payload: bytes) -> bytes:
    """The CRC-32 that guards the payload against damage (a file cut short, a flipped bit): the
    payload is written only by mprules into the user's own cache, and a CRC reads half a megabyte
    in a fraction of a millisecond where SHA-256 takes several."""
    return _crc(payload).to_bytes(4, "big")


def _crc(data: bytes) -> int:
    # start-up: zlib loads only when a cache entry is read or written
    import zlib

    return zlib.crc32(data)


def _unpickled(entry: str, rebuild: Callable[[], Ruleset] | None = None) -> Any:
    """The payload of a true entry, or ``_NOTHING``."""
    # Only an entry whose checksums matched is unpickled: written by mprules into the user's own
    # cache directory, never a file from elsewhere.
    try:
        with open(entry, "rb") as handle:
            if _header(handle) is None:
                return _NOTHING
            head = handle.read(4)
            payload = handle.read(MAX_ENTRY_BYTES + 1)
        if len(payload) > MAX_ENTRY_BYTES or _checksum(_guarded(payload)) != head:
            return _NOTHING
        if payload[:1] == _INDEXED:
            return _unmarshalled(payload, rebuild)
        # start-up: pickle loads only for a ruleset that is not plain data, and for kept results
        import pickle

        return pickle.loads(payload[1:] if payload[:1] == _PICKLED else payload)
    except (OSError, ValueError, EOFError, TypeError, KeyError, AttributeError, ImportError,
            IndexError):
        return _NOTHING
    except Exception as error:  # pickle.UnpicklingError, named without importing pickle
        if type(error).__name__ == "UnpicklingError":
            return _NOTHING
        raise


def _unmarshalled(payload: bytes, rebuild: Callable[[], Ruleset] | None) -> Any:
    """The ruleset ``_marshalled`` wrote, or ``_NOTHING`` when it is not what it wrote."""
    # start-up: marshal is built in
    import marshal

    from interpreter.ruleset.model import Rule, Ruleset  # start-up: only when a ruleset is read
    from rules_dsl.errors import Location

    start = 5 + int.from_bytes(payload[1:5], "big")
    names, own, apart, places, index, aliases = marshal.loads(payload[5:start])
    if tuple(names) != Rule._fields:
        return _NOTHING
    blobs = _Rules(payload, start, index)
    ruleset = Ruleset.__new__(Ruleset)
    ruleset.__dict__.update(own)
    for name in _APART_OWN:
        if name in apart:
            ruleset.__dict__[name] = _Unread(apart[name][1], apart[name][0])
    ruleset.__dict__["bases"] = _Unread(
        {(): apart["bases"]}, 0, lambda bases: {key: Rule.from_fields(values) for key, values in bases.items()})
    ruleset.__dict__["campaign_at"] = {key: Location(*values) for key, values in places.items()}
    shell = ruleset.kept_rules(blobs, aliases, marshalled=True, rebuild=rebuild)
    shell.__dict__["_pending"] = _Pending(shell.__dict__["_pending"])
    return shell


def _read(entry: str, rebuild: Callable[[], Ruleset] | None = None) -> Ruleset | None:
    ruleset = _unpickled(entry, rebuild)
    # start-up: interpreter.ruleset.model loads only when _read() runs
    from interpreter.ruleset.model import Ruleset

    return ruleset if isinstance(ruleset, Ruleset) else None


def _read_payload(entry: str) -> Any:
    """A kept result (``kept``), or ``_NOTHING``."""
    found = _unpickled(entry)
    if isinstance(found, tuple) and len(found) == 2 and found[0] == "kept":
        return found[1]
    return _NOTHING


def content_hash(path: str | Path | None, param_overrides: dict | None,
                 adopt: dict | None, given_as: str | None = None) -> str | None:
    """The content hash of the ruleset ``load`` would give, read from its cache entry without
    loading the ruleset (None when there is no true entry: load it to know)."""
    if not enabled():
        return None
    try:
        entry = _entry(path, param_overrides, adopt, given_as)
        with open(entry, "rb") as handle:
            header = _header(handle)
    except (OSError, RuntimeError, TypeError, ValueError, KeyError):
        return None
    value = header.get("content_hash") if header else None
    return value if isinstance(value, str) else None


def _write(entry: str, ruleset: Ruleset, result: Any = None) -> None:
    # start-up: pickle loads only when _write() runs
    import pickle

    try:
        header, payload = _encode(ruleset, result)
    except (pickle.PicklingError, ValueError, TypeError, AttributeError):
        return  # a value that cannot be kept: this ruleset is simply not cached
    blob = (FORMAT + sha256(header).digest() + len(header).to_bytes(4, "big") + header
            + _checksum(_guarded(payload)) + payload)
    if len(blob) > MAX_ENTRY_BYTES:
        return
    write_atomically(entry, blob)  # a cache that cannot be written is no cache, never an error
    _prune(os.path.dirname(entry), os.path.basename(entry))


def _prune(folder: str, kept: str) -> None:
    """Remove the oldest written entries beyond ``MAX_CACHED_RULESETS`` (those of rulesets not
    loaded for long, or written by an mprules since replaced), never ``kept``, and what writes
    interrupted long ago left behind. Another process may remove the same files: never an error.
    Kept results (``.kept``) are counted apart, up to ``MAX_KEPT_RESULTS``."""
    # start-up: the limits load only when an entry is written
    from interpreter.ruleset.limits import MAX_CACHED_RULESETS

    suffix, limit = (KEPT, MAX_KEPT_RESULTS) if kept.endswith(KEPT) else (".bin", MAX_CACHED_RULESETS)
    cachefile.prune(folder, lambda name: cachefile.hashed_name(name, suffix), limit, kept)
    try:
        with os.scandir(folder) as listing:
            stale = [item.path for item in listing if item.name.endswith(cachefile.TEMPORARY)
                     and time.time() - item.stat().st_mtime > 3600]
    except OSError:
        return
    for path in stale:
        _remove(path)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
