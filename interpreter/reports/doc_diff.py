"""What differs between two versions of a rule document, field by field down to the leaf: mappings
key by key, lists of mappings keyed by ``id`` (or ``name``) item by item (added, removed, changed,
moved), ``{ja, en}`` texts per language with the lines that changed, anything else as one value.
The same merge rule a variant writes with is the one this reads back (docs/variants.md)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

KEYS = ("id", "name")  # the fields that key the items of a list of mappings, in order of preference
LANGUAGES = ("ja", "en")


@dataclass(frozen=True)
class FieldChange:
    """One difference: ``path`` from the document's top (keys, and ``[KEY]`` for a keyed item),
    ``change`` one of ``added``, ``removed``, ``changed``, ``moved``; ``lines`` the changed lines of a
    multi-line text per language (``-`` old, ``+`` new); ``after`` the key an added or moved item
    now follows (``None``: first)."""

    path: tuple[str, ...]
    change: str
    old: Any = None
    new: Any = None
    lines: dict[str, list[str]] = field(default_factory=dict)
    after: str | None = None

    @property
    def field(self) -> str:
        """The path as one string: ``plan.sides[pc].messages``."""
        out = ""
        for part in self.path:
            out += part if part.startswith("[") or not out else "." + part
        return out

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"field": self.field, "path": list(self.path), "change": self.change,
                                 "old": self.old, "new": self.new}
        if self.lines:
            entry["lines"] = self.lines
        if self.change in ("added", "moved") and self.path and self.path[-1].startswith("["):
            entry["after"] = self.after
        return entry


def is_text(value: Any) -> bool:
    """A ``{ja, en}`` text (one or both languages)."""
    return isinstance(value, dict) and bool(value) and set(value) <= set(LANGUAGES)


def list_key(items: Any) -> str | None:
    """The field that keys a list of mappings (every item has it, a distinct text), or None."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in KEYS:
        values = [i.get(key) for i in items]
        if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
            return key
    return None


def changes(old: Any, new: Any, path: tuple[str, ...] = ()) -> list[FieldChange]:
    """Every difference between ``old`` and ``new`` (``None`` is a missing value)."""
    if old == new:
        return []
    if old is None:
        return [FieldChange(path, "added", new=new)]
    if new is None:
        return [FieldChange(path, "removed", old=old)]
    if isinstance(old, dict) and isinstance(new, dict) and not (is_text(old) and is_text(new)):
        out: list[FieldChange] = []
        for key in list(old) + [k for k in new if k not in old]:
            out += changes(old.get(key), new.get(key), path + (str(key),))
        return out
    if is_text(old) or is_text(new) or (isinstance(old, str) and isinstance(new, str)):
        lines = text_lines(old, new)
        return [FieldChange(path, "changed", old, new, lines=lines)]
    key = list_key(old)
    if key is not None and key == list_key(new):
        return _keyed(old, new, key, path)
    if _records(old) and _records(new) and len(old) == len(new):
        out = []
        for index, (a, b) in enumerate(zip(old, new), start=1):
            out += changes(a, b, path + (f"[#{index}]",))
        return out
    return [FieldChange(path, "changed", old, new)]


def _records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(i, dict) for i in value)


def _keyed(old: list[dict], new: list[dict], key: str, path: tuple[str, ...]) -> list[FieldChange]:
    before = {item[key]: item for item in old}
    after = {item[key]: item for item in new}
    out: list[FieldChange] = []
    for item in old:
        if item[key] not in after:
            out.append(FieldChange(path + (f"[{item[key]}]",), "removed", old=item))
    kept_old = [k for k in before if k in after]
    kept_new = [k for k in after if k in before]
    moved = _moved(kept_old, kept_new)
    previous: str | None = None
    for item in new:
        name = item[key]
        where = path + (f"[{name}]",)
        if name not in before:
            out.append(FieldChange(where, "added", new=item, after=previous))
        else:
            if name in moved:
                out.append(FieldChange(where, "moved", after=previous))
            out += changes(_without(before[name], key), _without(item, key), where)
        previous = name
    return out


def _moved(old_order: list[str], new_order: list[str]) -> set[str]:
    """The items that moved: those outside a longest run kept in the same order."""
    matcher = difflib.SequenceMatcher(a=old_order, b=new_order, autojunk=False)
    kept = {old_order[block.a + i] for block in matcher.get_matching_blocks() for i in range(block.size)}
    return set(new_order) - kept


def _without(item: dict, key: str) -> dict:
    return {k: v for k, v in item.items() if k != key}


def text_lines(old: Any, new: Any) -> dict[str, list[str]]:
    """For each language whose text has more than one line on either side: its changed lines
    (``- old`` and ``+ new``), in order."""
    out: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        a, b = _in(old, lang), _in(new, lang)
        if a == b or ("\n" not in a.strip("\n") and "\n" not in b.strip("\n")):
            continue
        old_lines, new_lines = a.splitlines(), b.splitlines()
        changed: list[str] = []
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                changed += [f"- {line}" for line in old_lines[i1:i2]] + [f"+ {line}" for line in new_lines[j1:j2]]
        out[lang] = changed
    return out


def _in(text: Any, lang: str) -> str:
    if isinstance(text, str):
        return text
    if is_text(text):
        return str(text.get(lang, ""))
    return ""
