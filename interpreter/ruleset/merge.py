"""The one merge rule of variants: how a patch (an override, a layer's ruleset-wide ``parameters``,
a document written ``based_on`` another) changes a value, carrying the file position and written
text of every value along so a finding still points at the line that wrote it.

- a mapping merges key by key;
- a list of mappings keyed by ``id`` (or ``name``, for computed values, examples and probes) is
  patched item by item: an item with a key already there replaces that item whole, a new key is
  added at the end, or where ``before: KEY`` / ``after: KEY`` puts it; ``remove: true`` removes the
  item; ``at: N`` (1-based, in the list as it stood before the patch) addresses an item without a
  key (``at`` together with the key in one edit is an error);
- any other value replaces.

The semantics are taught in docs/variants.md."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import filterfalse
from operator import itemgetter, methodcaller
from typing import Any, Callable

from rules_dsl.errors import define, did_you_mean
from rules_dsl.words import define_words, vocabulary

from interpreter.documents.plain import plain_copy

EDIT_KEYS = ("at", "before", "after", "remove")  # the words of a list edit, never kept in the item
KEYS = ("id", "name")  # the fields that name an item of a list, in order of preference
MISSING = object()

NO_SUCH_ITEM = define(
    "MPR904", "rule {rule} has no item {row} of {field} to {action}{hint}",
    "ルール {rule} の {field} に{action}する項目 {row} はありません{hint}")
AMBIGUOUS_ITEM = define(
    "MPR905", "rule {rule} has {count} items of {field} with {key} {row!r} (items {positions}); address one with at: N",
    "ルール {rule} の {field} には {key} が {row!r} の項目が {count} 個あります（{positions} 番目）。at: N で1つを指定してください")
ITEM_WITHOUT_ADDRESS = define(
    "MPR907", "an edit of {field} of rule {rule} needs its {key} (replace or add) or at: N (replace or remove item N)",
    "ルール {rule} の {field} の変更には {key}（置き換えまたは追加）か at: N（N 番目を置き換えまたは削除）が必要です")
AT_AND_KEY = define(
    "MPR916", "an edit of {field} of rule {rule} writes both at: {at} and {key}: {value!r}; address the item by one of them",
    "ルール {rule} の {field} の変更が at: {at} と {key}: {value!r} を両方書いています。どちらか一方で項目を指定してください")
NO_SUCH_ANCHOR = define(
    "MPR917", "{word}: {anchor!r} names no item of {field} of rule {rule}{hint}",
    "{word}: {anchor!r} はルール {rule} の {field} にない項目です{hint}")
BAD_PLACEMENT = define(
    "MPR918", "an edit of {field} of rule {rule} may place an item with one of before or after, only with its {key} and without remove or at",
    "ルール {rule} の {field} の変更で位置を決められるのは before か after の一方だけで、{key} と一緒に書き、remove や at とは書けません")
ACTIONS = define_words("variant.row_action", {"replace": "replace", "remove": "remove"},
                       {"replace": "置き換え", "remove": "削除"})


class Marks:
    """The positions and written texts of one value, by path relative to it. Split into its
    children (``kids``) the first time a merge looks inside, and kept split through every later
    patch, so many layers' edits of a long list cost one pass over its positions."""

    __slots__ = ("pos", "txt", "kids")

    def __init__(self, pos: dict | None = None, txt: dict | None = None) -> None:
        self.pos: dict = pos if pos is not None else {}
        self.txt: dict = txt if txt is not None else {}
        self.kids: dict[Any, Marks] | None = None

    def split(self) -> dict[Any, Marks]:
        if self.kids is None:
            kids: dict[Any, Marks] = {}
            paths: dict[tuple, tuple] = {}  # each relative path once
            own_pos = self._share(self.pos, kids, paths, "pos")
            own_txt = self._share(self.txt, kids, paths, "txt")
            self.pos, self.txt, self.kids = own_pos, own_txt, kids
        return self.kids

    @staticmethod
    def _share(marks: dict, kids: dict[Any, Marks], paths: dict[tuple, tuple], field: str) -> dict:
        """Hand each mark below a child to that child's ``field`` (its path relative to it); the
        marks of this node itself are returned."""
        own = {}
        for key, value in marks.items():
            if key:
                kid = kids.get(key[0])
                if kid is None:
                    kid = kids[key[0]] = Marks()
                rest = key[1:]
                getattr(kid, field)[paths.setdefault(rest, rest)] = value
            else:
                own[key] = value
        return own

    @staticmethod
    def nested(pos: dict, txt: dict, depth: int) -> Marks:
        """The marks of ``pos`` and ``txt`` split ``depth`` levels deep in one pass (each path
        cut once), as ``split`` would leave them after ``depth`` calls down the tree."""
        root = Marks()
        root.kids = {}
        paths: dict[tuple, tuple] = {}  # each relative path once: the rows of a table share a few
        for store, own in ((pos, True), (txt, False)):
            for key, value in store.items():
                node, level = root, 0
                while level < depth and level < len(key):
                    kids = node.kids
                    if kids is None:
                        kids = node.kids = {}
                    child = kids.get(key[level])
                    if child is None:
                        child = kids[key[level]] = Marks()
                        if level + 1 < depth:
                            child.kids = {}
                    node, level = child, level + 1
                rest = key[level:]
                (node.pos if own else node.txt)[paths.setdefault(rest, rest)] = value
        return root

    def kid(self, key: Any) -> Marks:
        return self.split().get(key) or Marks()

    def without(self, names: tuple) -> Marks:
        kids = self.split()
        out = Marks(dict(self.pos), dict(self.txt))
        out.kids = {k: v for k, v in kids.items() if k not in names}
        return out

    def flat(self) -> tuple[dict, dict]:
        """(positions, texts), every path relative to this value."""
        if self.kids is None:
            return self.pos, self.txt
        pos: dict = {}
        txt: dict = {}
        self._flat_into(pos, txt, ())
        return pos, txt

    def _flat_into(self, pos: dict, txt: dict, prefix: tuple) -> None:
        stack = [(self, prefix)]
        while stack:
            node, at = stack.pop()
            if at:
                for path, value in node.pos.items():
                    pos[at + path] = value
                for path, value in node.txt.items():
                    txt[at + path] = value
            else:
                pos.update(node.pos)
                txt.update(node.txt)
            if node.kids:
                stack.extend((kid, at + (key,)) for key, kid in node.kids.items())


@dataclass
class Patch:
    """What one layer writes, and how the merge reports: ``write(address, value, path)`` records
    a write (False: refused, e.g. written twice), ``report(code, path, **args)`` a finding at
    ``path`` inside the patch; ``origin`` is the layer named as the writer of new list items."""

    rule: str
    origin: str
    write: Callable[[tuple, Any, tuple], bool]
    report: Callable[..., None]
    lang: str = "en"
    changed: set = field(default_factory=set)  # top-level fields the patch changed


def key_of(items: list, patch: list) -> str | None:
    """The field that names the items of a list (``id``, else ``name``), or None."""
    for key in KEYS:
        if any(isinstance(item, dict) and key in item for item in items) or \
                any(isinstance(item, dict) and key in item for item in patch):
            return key
    return None


def is_list_patch(old: Any, patch: Any) -> bool:
    """Whether ``patch`` edits the list ``old`` item by item (rather than replacing it)."""
    if not isinstance(patch, list) or not isinstance(old, list) or not patch:
        return False
    if not all(isinstance(item, dict) for item in patch):
        return False
    return key_of(old, patch) is not None or any(k in item for item in patch for k in EDIT_KEYS)


def merge_value(old: Any, marks: Marks, patch: Any, patch_marks: Marks, edit: Patch,
                address: tuple) -> tuple[Any, Marks, list[str] | None]:
    """The value after ``patch`` (the old value is not changed; untouched parts are shared),
    its marks, and for a patched list the layer of each item."""
    if isinstance(patch, dict) and isinstance(old, dict):
        own = Marks(marks.pos, marks.txt)  # a copy: the old marks may be a base's
        own.kids = dict(marks.split())
        return merge_mapping(old, own, patch, patch_marks, edit, address), own, None
    if is_list_patch(old, patch):
        return merge_list(old, marks, patch, patch_marks, edit, address, None)
    if edit.write(address, patch, ()):
        return plain_copy(patch), patch_marks, None
    return old, marks, None


def merge_mapping(old: dict, marks: Marks, patch: dict, patch_marks: Marks, edit: Patch,
                  address: tuple) -> dict:
    """``old`` merged key by key with ``patch``; ``marks`` (the caller's own copy) is updated in
    place."""
    new = dict(old)
    kids = marks.split()
    for key, value in patch.items():
        here = address + (key,)
        scoped = _scoped(edit, (key,))
        merged, kid_marks, _ = merge_value(old.get(key, MISSING), kids.get(key) or Marks(), value,
                                           patch_marks.kid(key), scoped, here)
        if merged is MISSING:
            continue
        new[key] = merged
        kids[key] = kid_marks
    return new


def _scoped(edit: Patch, prefix: tuple) -> Patch:
    """The same patch, its paths read under ``prefix``."""
    return Patch(edit.rule, edit.origin,
                 lambda address, value, path: edit.write(address, value, prefix + path),
                 lambda code, path, **args: edit.report(code, prefix + path, **args),
                 edit.lang, edit.changed)


Slot = tuple[Any, Marks, str]  # an item, its marks, the layer that wrote it


def merge_list(old: list, marks: Marks, patch: list, patch_marks: Marks, edit: Patch,
               address: tuple, origins: list[str] | None) -> tuple[list, Marks, list[str]]:
    """``old`` patched item by item; ``origins`` names the layer of each old item (by default
    the patch's)."""
    kids = marks.split()
    count = len(old)
    # the marks that are not an item's (the list's key), in their order; the items' by index
    others = {k: kids[k] for k in filterfalse(set(range(count)).__contains__, kids)
              if not isinstance(k, int)}
    layers = origins if origins is not None and len(origins) == count else [edit.origin] * count
    item_marks: list[Any] = list(map(kids.get, range(count)))
    if None in item_marks:
        item_marks = [m if m is not None else Marks() for m in item_marks]
    slots: list[Slot | None] = list(zip(old, item_marks, layers))
    slots, written = patch_slots(slots, patch, patch_marks, edit, address)
    if not written:
        return old, marks, layers
    out = Marks(marks.pos, marks.txt)
    out.kids = dict(others)
    alive = list(filter(None, slots))  # a slot is a tuple of three, a removed one None
    out.kids.update(zip(range(len(alive)), map(_MARKS, alive)))
    return list(map(_ITEM, alive)), out, list(map(_ORIGIN, alive))


_ITEM, _MARKS, _ORIGIN = itemgetter(0), itemgetter(1), itemgetter(2)
_PLAIN = frozenset((str, int, float, bool, type(None)))  # values shared, never copied
_NOWHERE: list[str] = []  # an edit that places nothing (never changed)
_EDIT_KEYS = frozenset(EDIT_KEYS)


def _by_key(slots: list[Slot | None], key: str) -> dict[Any, list[int]]:
    """The slots of each name (an item's ``key``), in order."""
    items = [s[0] if s is not None else None for s in slots]
    if None not in items and set(map(type, items)) == {dict}:
        names = list(map(methodcaller("get", key), items))
        try:
            unique = len(set(names)) == len(names)
        except TypeError:  # a name that is not hashable: as the loop below finds it
            unique = False
        if unique:
            by_key = dict(zip(names, map(list, zip(range(len(names))))))
            by_key.pop(None, None)
            return by_key
    found: dict[Any, list[int]] = {}
    for i, slot in enumerate(slots):
        if slot is not None and isinstance(slot[0], dict) and slot[0].get(key) is not None:
            found.setdefault(slot[0][key], []).append(i)
    return found


def patch_slots(slots: list[Slot | None], patch: list, patch_marks: Marks, edit: Patch,
                address: tuple) -> tuple[list[Slot | None], bool]:
    """The slots after ``patch``, in order; whether anything was written."""
    items = list(map(_ITEM, filter(None, slots)))
    key = key_of(items, patch) or "id"
    count = len(slots)
    by_key = _by_key(slots, key)
    placed: dict[int, tuple[list[int], list[int]]] = {}  # slot -> (slots before it, slots after it)
    anchored: set[int] = set()
    written = False
    words = vocabulary(ACTIONS, edit.lang)
    field_ = ".".join(map(str, address[1:])) or address[0]

    def live(name: Any) -> list[int]:
        return [i for i in by_key.get(name, []) if (s := slots[i]) is not None
                and isinstance(s[0], dict) and s[0].get(key) == name]

    patch_kids = patch_marks.split()
    for index, entry in enumerate(patch):
        here = (index,)
        remove = entry.get("remove") is True
        action = words["remove" if remove else "replace"]
        if _EDIT_KEYS.isdisjoint(entry) and all(type(v) in _PLAIN for v in entry.values()):
            item = entry  # texts, numbers and the like only: the file's own row, never changed
        else:
            item = {k: v if type(v) in _PLAIN else plain_copy(v) for k, v in entry.items()
                    if k not in EDIT_KEYS}
        where = [w for w in ("before", "after") if w in entry] \
            if "before" in entry or "after" in entry else _NOWHERE
        name = entry.get(key)
        if "at" in entry and name is not None:
            edit.report(AT_AND_KEY, here, field=field_, rule=edit.rule, at=entry["at"], key=key,
                        value=name)
            continue
        if where and (len(where) > 1 or remove or "at" in entry or name is None):
            edit.report(BAD_PLACEMENT, here + (where[0],), field=field_, rule=edit.rule, key=key)
            continue
        target: int | None = None
        if "at" in entry:
            at = entry["at"]
            label = f"#{at}"
            if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= count \
                    or slots[at - 1] is None:
                edit.report(NO_SUCH_ITEM, here + ("at",), rule=edit.rule, row=label, action=action, field=field_,
                            hint=f" (1..{count})")
                continue
            target = at - 1
        elif name is not None:
            label = str(name)
            matches = live(name)
            if len(matches) > 1:
                edit.report(AMBIGUOUS_ITEM, here, rule=edit.rule, row=label, count=len(matches), field=field_, key=key,
                            positions=", ".join(str(i + 1) for i in matches))
                continue
            target = matches[0] if matches else None
            if target is None and remove:
                known = [s[0].get(key) for s in slots if s is not None and isinstance(s[0], dict)]
                edit.report(NO_SUCH_ITEM, here, rule=edit.rule, row=label, action=action, field=field_,
                            hint=did_you_mean(label, [str(k) for k in known if k is not None]))
                continue
        else:
            edit.report(ITEM_WITHOUT_ADDRESS, here, rule=edit.rule, field=field_, key=key)
            continue
        anchor: int | None = None
        if where:
            wanted = entry[where[0]]
            found = live(wanted)
            if not found:
                known = [s[0].get(key) for s in slots if s is not None and isinstance(s[0], dict)]
                edit.report(NO_SUCH_ANCHOR, here + (where[0],), word=where[0], anchor=wanted,
                            field=field_, rule=edit.rule,
                            hint=did_you_mean(str(wanted), [str(k) for k in known if k is not None]))
                continue
            anchor = found[0]
        if not edit.write(address + (label,), None if remove else item, here):
            continue
        written = True
        item_marks = patch_kids.get(index) or Marks()
        if len(item) != len(entry):  # the edit's own words have no place in the item
            item_marks = item_marks.without(EDIT_KEYS)
        if remove:
            slots[target] = None  # type: ignore[index]
        elif anchor is not None or target is None:
            if target is not None:
                slots[target] = None
            slots.append((item, item_marks, edit.origin))
            new = len(slots) - 1
            if name is not None:
                by_key.setdefault(name, []).append(new)
            if anchor is not None:
                placed.setdefault(anchor, ([], []))[0 if where[0] == "before" else 1].append(new)
                anchored.add(new)
        else:
            slots[target] = (item, item_marks, edit.origin)
    if not placed:
        return slots, written
    ordered: list[Slot | None] = []
    after_last = 0  # the slots between two that are placed or anchored keep their order
    for first in sorted(anchored | placed.keys()):
        ordered.extend(slots[after_last:first])
        after_last = first + 1
        if first in anchored:
            continue
        stack: list[tuple[int, bool]] = [(first, False)]  # (slot, its neighbours already pushed)
        while stack:
            i, opened = stack.pop()
            if opened or i not in placed:
                ordered.append(slots[i])
                continue
            before, after = placed[i]
            stack.extend((j, False) for j in reversed(after))
            stack.append((i, True))
            stack.extend((j, False) for j in reversed(before))
    ordered.extend(slots[after_last:])
    return ordered, written
