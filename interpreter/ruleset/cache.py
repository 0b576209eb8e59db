"""A disk cache of loaded and checked rulesets, so a command on an unchanged ruleset skips reading
YAML, validating schemas and running the semantic checks.

An entry is keyed by what was asked (the ruleset's path, the working directory that its messages'
paths are relative to, the caller's parameter overrides and adoption switches) and holds the ruleset with the content hash of every file it was built from
(every layer's manifest and rule files, the schemas) and the listing of every layer's directory.
It is used only when all of them are unchanged and the mprules code is the same (its version and,
in a checkout, the size and time of its source files). Entries are written to a temporary file
and renamed, so two processes may write at once; an entry that is damaged (its checksum does not
match) or from another format is ignored and rebuilt, never trusted. Only rulesets without errors
are cached.

The cache lives in ``$MPRULES_CACHE_DIR``, else ``$XDG_CACHE_HOME/mprules``, else
``~/.cache/mprules``; ``MPRULES_NO_CACHE=1`` (or ``mprules --no-cache``) turns it off (both are
decided in ``rules_dsl.cachefile``).
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import pickle
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rules_dsl import cachefile
from rules_dsl.cachefile import DIR_ENV, DISABLE_ENV, write_atomically

from interpreter.ruleset.model import Ruleset

FORMAT = b"MPRC3"
MAX_ENTRY_BYTES = 64 * 1024 * 1024
__all__ = ["DIR_ENV", "DISABLE_ENV", "cache_dir", "disable", "enabled", "load"]
disable = cachefile.disable
enabled = cachefile.enabled


def cache_dir() -> Path:
    return Path(cachefile.cache_root())


def load(path: str | Path | None, param_overrides: dict | None, adopt: dict | None,
         build: Callable[[], Ruleset]) -> Ruleset:
    """The ruleset from the cache when its entry is still true, else ``build()`` (stored)."""
    if not enabled():
        return build()
    try:
        entry = cache_dir() / f"{_key(path, param_overrides, adopt)}.bin"
    except (OSError, RuntimeError, TypeError, ValueError):
        return build()
    ruleset = _read(entry)
    if ruleset is not None:
        return ruleset
    ruleset = build()
    _write(entry, ruleset)
    return ruleset


def _key(path: str | Path | None, param_overrides: dict | None, adopt: dict | None) -> str:
    from interpreter import __version__

    root = str(Path(path).resolve()) if path is not None else ""
    asked = json.dumps([root, os.getcwd(), param_overrides or {}, adopt or {}], sort_keys=True,
                       default=repr, ensure_ascii=False)
    code = json.dumps([__version__, sys.version_info[:2], _code_stamp()])
    return hashlib.sha256(f"{code}\n{asked}".encode()).hexdigest()


def _code_stamp() -> list[Any]:
    """The size and modification time of every source file of mprules: a checkout whose code
    changed never reads an entry written by the old code."""
    here = Path(__file__).resolve().parent.parent  # the interpreter package
    stamp: list[Any] = []
    for package in (here, here.parent / "rules_dsl"):
        for dirpath, dirnames, filenames in os.walk(package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".lark")):
                    st = os.stat(os.path.join(dirpath, name))
                    stamp.append((name, st.st_size, st.st_mtime_ns))
    return stamp


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _listing(directory: str, patterns: Iterable[str]) -> list[str]:
    root = Path(directory)
    found = {str(p) for pattern in patterns for p in root.glob(pattern) if p.is_file()}
    return sorted(found)


def _dependencies(ruleset: Ruleset) -> dict[str, Any]:
    from interpreter.documents.resources import schemas_dir

    files = sorted(set(ruleset.files) | {str(p) for p in schemas_dir().rglob("*.json")})
    return {"files": [[f, _digest(f)] for f in files],
            "listings": [[d, list(globs), _listing(d, globs)]
                         for d, globs in sorted(ruleset.listings.items())]}


def _still_true(deps: dict[str, Any]) -> bool:
    for name, digest in deps["files"]:
        if digest is None or _digest(name) != digest:
            return False
    return all(_listing(d, globs) == listed for d, globs, listed in deps["listings"])


def _encode(ruleset: Ruleset) -> bytes:
    plain = copy.copy(ruleset)
    plain.rules = {}
    for rule_id, rule in ruleset.rules.items():
        kept = copy.copy(rule)
        for f in dataclasses.fields(kept):
            if f.name.startswith("_") and isinstance(getattr(kept, f.name), dict):
                setattr(kept, f.name, {})  # compiled expressions: made again on use
        plain.rules[rule_id] = kept
    return pickle.dumps({"deps": _dependencies(ruleset), "ruleset": plain},
                        protocol=pickle.HIGHEST_PROTOCOL)


def _decode(payload: bytes) -> Ruleset | None:
    # Only an entry whose checksum matched reaches here: written by mprules into the user's own
    # cache directory, never a file from elsewhere.
    data = pickle.loads(payload)
    if not isinstance(data, dict) or not _still_true(data["deps"]):
        return None
    ruleset = data["ruleset"]
    return ruleset if isinstance(ruleset, Ruleset) else None


def _read(entry: Path) -> Ruleset | None:
    try:
        with open(entry, "rb") as handle:
            blob = handle.read(MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    head = len(FORMAT) + 32
    if len(blob) <= head or len(blob) > MAX_ENTRY_BYTES or not blob.startswith(FORMAT):
        return None
    checksum, payload = blob[len(FORMAT):head], blob[head:]
    if hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        return _decode(payload)
    except (pickle.UnpicklingError, ValueError, EOFError, TypeError, KeyError, AttributeError,
            ImportError, IndexError):
        return None


def _write(entry: Path, ruleset: Ruleset) -> None:
    try:
        payload = _encode(ruleset)
    except (pickle.PicklingError, ValueError, TypeError, AttributeError):
        return  # a value that cannot be kept: this ruleset is simply not cached
    blob = FORMAT + hashlib.sha256(payload).digest() + payload
    if len(blob) > MAX_ENTRY_BYTES:
        return
    write_atomically(entry, blob)  # a cache that cannot be written is no cache, never an error
