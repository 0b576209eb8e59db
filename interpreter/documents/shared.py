"""Per-file work shared by every ruleset read in one process: ``validate`` and ``test`` of many
rulesets check a base's files once, not once per variant that extends it.

``read(path)`` gives the documents of a YAML file (as ``loader.load_file``), keyed by path and
content (a hash of the bytes): a file edited between two reads is read again. The first reader
gets the parse itself and only the key is kept, so a process that reads a file once holds it
once; a second reader has the file parsed once more, and that parse is kept, unchanged, for every
later reader, who gets its own copy of the data (a ruleset may change what it is handed), the
positions and texts shared (nothing changes them): a file is parsed at most twice per process.
``check(doc, schema, lang)`` is ``schema.validate_document`` of such a document, done once per
file, document, schema and language. ``enabled(False)`` turns the sharing off (the results are
the same, only slower: the tests compare both); at most ``MAX_FILES`` files and
``MAX_SHARED_COST`` values (weighted by depth, as ``Document.cost``) are kept, the memo emptied
when one more would pass either.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import weakref
from pathlib import Path

from rules_dsl.errors import Diagnostic, MprError

from interpreter.documents import loader
from interpreter.documents.limits import MAX_RULE_FILE_BYTES, MAX_SHARED_COST
from interpreter.documents.plain import plain_copy
from interpreter.documents.yaml_events import BUDGET

MAX_FILES = 1024
_kept = [0]  # the cost of the documents ``_read`` keeps

_on = True
# path + content -> (the documents, kept unchanged, None while one reader has had them; error)
_read: dict[tuple[str, bytes], tuple[list[loader.Document] | None, MprError | None]] = {}
# id(handed-out document) -> it, held weakly (a ruleset done with its documents frees them), and its key
_handed: weakref.WeakValueDictionary[int, loader.Document] = weakref.WeakValueDictionary()
_key_of: dict[int, tuple[str, bytes]] = {}
_checked: dict[tuple, list[Diagnostic]] = {}
_memos: list[dict] = []  # other layers' per-process memos (``memo``), emptied with these


def enabled(on: bool | None = None) -> bool:
    """Whether sharing is on (and, given ``on``, set it; turning it off forgets what was kept)."""
    global _on
    if on is not None:
        _on = on
        if not on:
            clear()
    return _on


def clear() -> None:
    _kept[0] = 0
    _read.clear()
    _handed.clear()
    _key_of.clear()
    _checked.clear()
    for kept in _memos:
        kept.clear()


def memo() -> dict:
    """A dict for a higher layer's shared work (the examples' outcomes), emptied by ``clear``
    and when sharing is turned off; its user checks ``enabled()`` before using it."""
    kept: dict = {}
    _memos.append(kept)
    return kept


def read(path: str | Path, *, max_bytes: int = MAX_RULE_FILE_BYTES, copy_data: bool = True,
         budget: tuple[int, int] | None = None) -> list[loader.Document]:
    """``loader.load_file(path)``, the parse shared by every reader of the same bytes
    (``copy_data=False``: the shared documents themselves, for a reader that changes nothing).
    ``budget`` (values left, whole) bounds the values read over many files: a file past it is
    MPR970, located where it passes, and that refusal is never kept (another reader may have more
    left)."""
    if not _on:
        return loader.load_file(path, max_bytes=max_bytes, budget=budget)
    name = loader._shown(path)
    try:
        with loader.open_regular(path) as stream:
            data = stream.read(max_bytes + 1)
    except (OSError, MprError):
        return loader.load_file(path, max_bytes=max_bytes)  # its own error, worded as always
    if len(data) > max_bytes:
        return loader.load_file(path, max_bytes=max_bytes)
    key = (name, hashlib.blake2b(data, digest_size=20).digest())
    known = _read.get(key)
    if budget is not None and known is not None and known[0] is not None \
            and sum(doc.cost for doc in known[0]) > budget[0]:
        return loader.load_text(data, name, budget=budget)  # MPR970, where the file passes it
    if known is None or known[0] is None:
        if len(_read) >= MAX_FILES:
            clear()
        try:
            parsed, refused = loader.load_text(data, name, budget=budget), None
        except MprError as bad:
            if bad.code == BUDGET:
                raise
            parsed, refused = [], bad
        if known is None and copy_data:
            # The first reader gets the parse itself and only the key is kept: a process that
            # reads the file once (one ruleset) holds it once. A second reader has it parsed once
            # more, and that parse is kept, unchanged, for every later reader.
            _read[key] = (None, refused)
            _remember(parsed, key)
            if refused is not None:
                raise refused
            return parsed
        cost = sum(doc.cost for doc in parsed)
        if _kept[0] + cost > MAX_SHARED_COST:
            clear()
        _kept[0] += cost
        known = _read[key] = (parsed, refused)
    documents, refused = known
    if refused is not None:
        raise copy.copy(refused)
    if documents is None:  # never: a kept entry without an error holds its documents
        documents = []
    if not copy_data:
        return list(documents)
    handed = [dataclasses.replace(doc, data=plain_copy(doc.data)) for doc in documents]
    _remember(handed, key)
    return handed


def _remember(handed: list[loader.Document], key: tuple[str, bytes]) -> None:
    if len(_key_of) >= 64 * MAX_FILES:
        _key_of.clear()
        _handed.clear()
    for doc in handed:
        _handed[id(doc)] = doc
        _key_of[id(doc)] = key


def check(doc: loader.Document, schema: str, lang: str) -> list[Diagnostic]:
    """``schema.validate_document(doc, schema, lang)``, once per shared file and document."""
    # start-up: the schema validators load only to check a document
    from interpreter.documents.schema import validate_document

    known = _key_of.get(id(doc)) if _on and _handed.get(id(doc)) is doc else None
    if known is None:
        return validate_document(doc, schema, lang)
    key = (known, doc.index, schema, lang)
    found = _checked.get(key)
    if found is None:
        found = _checked[key] = validate_document(doc, schema, lang)
    return list(found)
