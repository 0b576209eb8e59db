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

How it is made fast for a long table edited by many layers: a list being patched is a ``Table``
through every layer's patches (a chain of its items with an index by name; a patch costs its
own entries, never the length of the list), made a list once at the end; the positions and
texts of every value are read in place from the file that wrote them (``View``, and ``Rows`` for
a folded list's items: no object per row), never copied, cut or joined, and a folded rule's
positions are read through them (``Folded``, a plain dict only once something lists them).

The semantics are taught in docs/variants.md."""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Callable

from rules_dsl.errors import define, did_you_mean
from rules_dsl.words import define_words, vocabulary

from interpreter.documents.plain import FlatOnUse, plain_copy

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


_INTS = ("ints",)  # ``hide``: every int key (the items of a list, re-numbered by a patch)
_ALL = ("all",)  # ``hide``: every key (only the value's own mark stays)


def _hidden(hide: Any, key: Any) -> bool:
    if hide is None:
        return False
    if hide is _INTS:
        return isinstance(key, int)
    if hide is _ALL:
        return True
    return key in hide


class View:
    """The marks of one value read in place from the positions and texts of the document that
    wrote it (every path under ``prefix``): made in constant time, never copied or cut."""

    __slots__ = ("pos", "txt", "prefix")

    def __init__(self, pos: Any, txt: Any, prefix: tuple) -> None:
        self.pos, self.txt, self.prefix = pos, txt, prefix

    def kid(self, key: Any) -> View:
        return View(self.pos, self.txt, self.prefix + (key,))

    def get(self, path: tuple, which: int) -> Any:
        return (self.txt if which else self.pos).get(self.prefix + path)

    def without(self, names: tuple) -> Marks:
        return Marks.over(self, frozenset(names))

    def copy(self) -> Marks:
        return Marks.over(self)


class Rows:
    """The marks of a list a ``Table`` folded: item ``i``'s are ``marks[i]``, or, when that is
    an int, read in place from the patch that wrote the item (``sources[srcs[i]]``: its
    positions, texts and the list's path there; the int is the item's index in that list), so a
    row costs no object of its own; every other key (the list's own marks) comes from ``base``,
    whose items are hidden."""

    __slots__ = ("base", "marks", "srcs", "sources")

    def __init__(self, base: Mark | None, marks: list, srcs: list[int], sources: list[tuple]) -> None:
        self.base, self.marks, self.srcs, self.sources = base, marks, srcs, sources

    def item(self, i: int) -> Mark:
        found = self.marks[i]
        if type(found) is int:
            pos, txt, prefix = self.sources[self.srcs[i]]
            return View(pos, txt, prefix + (found,))
        return found

    def kid(self, key: Any) -> Mark:
        if isinstance(key, int):
            return self.item(key) if 0 <= key < len(self.marks) else Marks()
        return self.base.kid(key) if self.base is not None else Marks()

    def without(self, names: tuple) -> Marks:
        return Marks.over(self, frozenset(names))

    def copy(self) -> Marks:
        return Marks.over(self)


class Marks:
    """The positions and written texts of one value, by path relative to it. Either plain
    (``pos`` and ``txt`` hold every path, split into ``kids`` the first time a merge looks
    inside), or an overlay: the value's own marks and the ``kids`` a merge wrote, over ``base``
    (a ``View`` or other marks) for every other key but those ``hide`` names. A merge never
    copies or cuts the marks it does not change, so many layers' edits of a long list cost their
    own entries; the rule's positions are read through the tree (``Folded``)."""

    __slots__ = ("pos", "txt", "kids", "base", "hide")

    def __init__(self, pos: dict | None = None, txt: dict | None = None) -> None:
        self.pos: dict = pos if pos is not None else {}
        self.txt: dict = txt if txt is not None else {}
        self.kids: dict[Any, Mark] | None = None
        self.base: Mark | None = None
        self.hide: Any = None

    @classmethod
    def over(cls, base: Mark | None, hide: Any = None, kids: dict[Any, Mark] | None = None) -> Marks:
        """Marks that answer from ``base`` for every key but ``kids``' and those ``hide`` names."""
        marks = cls()
        marks.kids = {} if kids is None else kids
        marks.base, marks.hide = base, hide
        return marks

    def split(self) -> dict[Any, Mark]:
        if self.kids is None:
            kids: dict[Any, Mark] = {}
            paths: dict[tuple, tuple] = {}  # each relative path once
            own_pos = self._share(self.pos, kids, paths, "pos")
            own_txt = self._share(self.txt, kids, paths, "txt")
            self.pos, self.txt, self.kids = own_pos, own_txt, kids
        return self.kids

    @staticmethod
    def _share(marks: dict, kids: dict[Any, Any], paths: dict[tuple, tuple], field: str) -> dict:
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

    def kid(self, key: Any) -> Mark:
        found = self.split().get(key)
        if found is not None:
            return found
        if self.base is not None and not _hidden(self.hide, key):
            return self.base.kid(key)
        return Marks()

    def set_kid(self, key: Any, marks: Mark) -> None:
        self.split()[key] = marks

    def without(self, names: tuple) -> Marks:
        return Marks.over(self, frozenset(names))

    def copy(self) -> Marks:
        """A node of its own to write kids into (the marks it copies may be a base's)."""
        out = Marks(self.pos, self.txt)
        out.kids = dict(self.split())
        out.base, out.hide = self.base, self.hide
        return out

    def get(self, path: tuple, which: int) -> Any:
        """The position (``which`` 0) or written text (1) at ``path``, or None."""
        node: Mark = self
        while True:
            if type(node) is View:
                return node.get(path, which)
            if type(node) is Rows:
                if path and isinstance(path[0], int):
                    i = path[0]
                    if not 0 <= i < len(node.marks):
                        return None
                    found = node.marks[i]
                    if type(found) is int:
                        pos, txt, prefix = node.sources[node.srcs[i]]
                        return (txt if which else pos).get(prefix + (found,) + path[1:])
                    node, path = found, path[1:]
                    continue
                if node.base is None:
                    return None
                node = node.base
                continue
            own = node.txt if which else node.pos  # type: ignore[union-attr]
            kids = node.kids  # type: ignore[union-attr]
            if kids is None:
                return own.get(path)
            base = node.base  # type: ignore[union-attr]
            if not path:
                found = own.get(())
                if found is not None or base is None:
                    return found
                node = base
                continue
            kid = kids.get(path[0])
            if kid is not None:
                node, path = kid, path[1:]
            elif base is None or _hidden(node.hide, path[0]):  # type: ignore[union-attr]
                return None
            else:
                node = base

    def flat(self, which: int) -> dict:
        """Every mark (``which``: 0 positions, 1 texts) by path relative to this value. Each
        document read in place is scanned once, whatever number of views it has."""
        out: dict = {}
        grouped: dict[tuple[int, int], dict[tuple, list]] = {}
        # (marks, their path, the hides of the overlays above them, whether their own mark is shadowed)
        stack: list[tuple[Any, tuple, tuple, bool]] = [(self, (), (), False)]
        while stack:
            node, at, hides, shadowed = stack.pop()
            if type(node) is Rows:
                for i in range(len(node.marks)):
                    if not (hides and any(_hidden(hide, i) for hide in hides)):
                        stack.append((node.item(i), at + (i,), (), False))
                if node.base is not None:
                    stack.append((node.base, at, (*hides, _INTS), shadowed))
                continue
            if type(node) is View:
                source = node.txt if which else node.pos
                depth = len(node.prefix)
                groups = grouped.get((id(source), depth))
                if groups is None:
                    groups = grouped[(id(source), depth)] = {}
                    for key, value in source.items():
                        if len(key) >= depth:
                            groups.setdefault(key[:depth], []).append((key[depth:], value))
                entries = groups.get(node.prefix, ())
            else:
                entries = (node.txt if which else node.pos).items()
            for path, value in entries:
                if path:
                    if hides and any(_hidden(hide, path[0]) for hide in hides):
                        continue
                elif shadowed:
                    continue
                out[at + path] = value
            if type(node) is View or node.kids is None:
                continue
            for key, kid in node.kids.items():
                if not (hides and any(_hidden(hide, key) for hide in hides)):
                    stack.append((kid, at + (key,), (), False))
            if node.base is not None:
                own = node.txt if which else node.pos
                stack.append((node.base, at, (*hides, node.kids, node.hide), shadowed or () in own))
        return out

class Folded(FlatOnUse):
    """The positions (``which`` 0) or written texts (1) of a folded rule, by path: read through
    its marks, so a table folded from many layers is never copied; it becomes a plain dict the
    first time something lists or changes it (the ruleset cache, ``test``'s examples)."""

    __slots__ = ("_marks", "_which", "_plain")

    def __init__(self, marks: Marks, which: int) -> None:
        self._marks: Marks | None = marks
        self._which = which
        self._plain: dict | None = None

    def plain(self) -> dict:
        if self._plain is None:
            assert self._marks is not None
            self._plain = self._marks.flat(self._which)
            self._marks = None
        return self._plain

    def get(self, path: Any, default: Any = None) -> Any:
        if self._plain is not None:
            return self._plain.get(path, default)
        found = self._marks.get(path, self._which)  # type: ignore[union-attr]
        return default if found is None else found

    def __getitem__(self, path: Any) -> Any:
        found = self.get(path)
        if found is None:
            raise KeyError(path)
        return found

    def __contains__(self, path: object) -> bool:
        return self.get(path) is not None

    def __bool__(self) -> bool:
        if self._plain is None and self._marks is not None and self._marks.get((), self._which) is not None:
            return True
        return bool(self.plain())

    def __repr__(self) -> str:
        return f"Folded({self.plain()!r})"


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
    under: Callable[[tuple], Patch] | None = None  # the same patch, its paths under a prefix
    # the log of the items this patch writes into the list at an address (``RowLog``), kept
    # instead of a write per item, or None (each item is written)
    log: Callable[[tuple], RowLog | None] | None = None


class RowLog:
    """The items one layer wrote into one list, by label, with their index in the patch that
    wrote them: what a layer's writes of a list's items leave when no two layers can conflict
    (each extends the one before). It finds an item written twice by the layer (``twice``
    reports it, given the label, the index of the second edit and where the first one is);
    ``earlier`` is the log of the layer's patch of the same list before this one."""

    __slots__ = ("labels", "earlier", "locate", "twice")

    def __init__(self, earlier: RowLog | None, locate: Callable[[int], Any],
                 twice: Callable[[str, int, Any], None]) -> None:
        self.labels: dict[str, int] = {}
        self.earlier, self.locate, self.twice = earlier, locate, twice

    def write(self, label: str, index: int) -> bool:
        """The edit at ``index`` writes ``label``: False (and the finding) when the layer wrote
        it already."""
        log: RowLog | None = self
        while log is not None:
            known = log.labels.get(label)
            if known is not None:
                self.twice(label, index, log.locate(known))
                return False
            log = log.earlier
        self.labels[label] = index
        return True


def key_of(items: list, patch: list) -> str | None:
    """The field that names the items of a list (``id``, else ``name``), or None."""
    for key in KEYS:
        if any(isinstance(item, dict) and key in item for item in items) or \
                any(isinstance(item, dict) and key in item for item in patch):
            return key
    return None


def is_list_patch(old: Any, patch: Any) -> bool:
    """Whether ``patch`` edits the list ``old`` (or the ``Table`` of one) item by item (rather
    than replacing it)."""
    if not isinstance(patch, list) or not isinstance(old, (list, Table)) or not patch:
        return False
    if not all(isinstance(item, dict) for item in patch):
        return False
    named = old.key_for(patch) if isinstance(old, Table) else key_of(old, patch)
    return named is not None or any(k in item for item in patch for k in EDIT_KEYS)


Mark = Marks | View | Rows


def merge_value(old: Any, marks: Mark, patch: Any, patch_marks: Mark, edit: Patch,
                address: tuple) -> tuple[Any, Mark, list[str] | None]:
    """The value after ``patch`` (the old value is not changed; untouched parts are shared),
    its marks, and for a patched list the layer of each item."""
    if isinstance(patch, dict) and isinstance(old, dict):
        own = marks.copy()  # the old marks may be a base's
        return merge_mapping(old, own, patch, patch_marks, edit, address), own, None
    if is_list_patch(old, patch):
        return merge_list(old, marks, patch, patch_marks, edit, address, None)
    if edit.write(address, patch, ()):
        return plain_copy(patch), patch_marks, None
    return old, marks, None


def merge_mapping(old: dict, marks: Marks, patch: dict, patch_marks: Mark, edit: Patch,
                  address: tuple) -> dict:
    """``old`` merged key by key with ``patch``; ``marks`` (the caller's own copy) is updated in
    place."""
    new = dict(old)
    for key, value in patch.items():
        here = address + (key,)
        scoped = _scoped(edit, (key,))
        merged, kid_marks, _ = merge_value(old.get(key, MISSING), marks.kid(key), value,
                                           patch_marks.kid(key), scoped, here)
        if merged is MISSING:
            continue
        new[key] = merged
        marks.set_kid(key, kid_marks)
    return new


def _scoped(edit: Patch, prefix: tuple) -> Patch:
    """The same patch, its paths read under ``prefix``."""
    return Patch(edit.rule, edit.origin,
                 lambda address, value, path: edit.write(address, value, prefix + path),
                 lambda code, path, **args: edit.report(code, prefix + path, **args),
                 edit.lang, edit.changed)


def merge_list(old: list, marks: Mark, patch: list, patch_marks: Mark, edit: Patch,
               address: tuple, origins: list[str] | None) -> tuple[list, Mark, list[str]]:
    """``old`` patched item by item; ``origins`` names the layer of each old item (by default
    the patch's)."""
    table = Table(old, marks, origins, edit.origin)
    if not table.patch(patch, patch_marks, edit, address):
        return old, marks, table.first_layers
    return table.settle()


_PLAIN = frozenset((str, int, float, bool, type(None)))  # values shared, never copied
_NOWHERE: list[str] = []  # an edit that places nothing (never changed)
_EDIT_KEYS = frozenset(EDIT_KEYS)
_END = -1  # no item: the end of the chain


class Table:
    """A list while the patches of every layer are folded into it, in one pass: its items in
    order as a chain (``after`` and ``before`` link the item numbers; a removed item stays in
    the chain, unseen, so what a patch places next to it keeps the order the merge rule gives),
    an index of the items by name, and each item's marks (read in place) and layer. A patch
    costs its own entries, not the length of the list; the list, its marks and layers are made
    once (``settle``).

    A patch addresses the list as it stood before it (``at: N``, the numbers in messages):
    items are numbered by ``born`` (the patch that made them, 0 for the list's own) and ``died``
    (the patch that removed them, 0 while they stand), so that list is found only when one of
    those needs it."""

    def __init__(self, old: list, marks: Mark, origins: list[str] | None, origin: str) -> None:
        count = len(old)
        self.old, self.old_marks = old, marks
        self.first_layers = origins if origins is not None and len(origins) == count \
            else [origin] * count
        self.items: list[Any] = list(old)
        # each item's marks: its index in the list ``sources[srcs[item]]`` wrote, or its marks
        self.sources: list[tuple] = []
        self.marks: list[Any]
        self.srcs: list[int]
        if type(marks) is View:
            self.sources.append((marks.pos, marks.txt, marks.prefix))
            self.marks, self.srcs = list(range(count)), [0] * count
        elif type(marks) is Rows and len(marks.marks) == count:
            self.sources.extend(marks.sources)
            self.marks, self.srcs = list(marks.marks), list(marks.srcs)
        else:
            self.marks, self.srcs = [marks.kid(i) for i in range(count)], [-1] * count
        self.layers: list[str] = list(self.first_layers)
        self.after = list(range(1, count)) + [_END] if count else []
        self.before = list(range(-1, count - 1))
        self.first, self.last = (0, count - 1) if count else (_END, _END)
        self.born = [0] * count
        self.died = [0] * count
        self.standing = count
        self.holding = {key: sum(1 for item in old if isinstance(item, dict) and key in item)
                        for key in KEYS}
        self.key: str | None = None
        self.index: dict[Any, Any] = {}  # a name -> its item (an int), or its items (a list)
        self.patches = 0
        self.written = False
        self._before_patch: list[int] | None = None
        self._new: list[int] = []

    # -- the chain ---------------------------------------------------------------------------

    def _make(self, item: Any, marks: Any, src: int, origin: str) -> int:
        node = len(self.items)
        self.items.append(item)
        self.marks.append(marks)
        self.srcs.append(src)
        self.layers.append(origin)
        self.after.append(_END)
        self.before.append(_END)
        self.born.append(self.patches)
        self.died.append(0)
        self.standing += 1
        if isinstance(item, dict):
            holding = self.holding
            for key in KEYS:
                if key in item:
                    holding[key] += 1
        self._new.append(node)
        return node

    def _link_after(self, node: int, where: int) -> None:
        """``node`` into the chain after ``where`` (``_END``: at the start)."""
        following = self.first if where == _END else self.after[where]
        self.before[node], self.after[node] = where, following
        if where == _END:
            self.first = node
        else:
            self.after[where] = node
        if following == _END:
            self.last = node
        else:
            self.before[following] = node

    def _remove(self, node: int) -> None:
        self.died[node] = self.patches
        self.standing -= 1
        self._count(self.items[node], -1)

    def _count(self, item: Any, by: int) -> None:
        if isinstance(item, dict):
            for key in KEYS:
                if key in item:
                    self.holding[key] += by

    def key_for(self, patch: list) -> str | None:
        """``key_of`` the standing items and ``patch``."""
        for key in KEYS:
            if self.holding[key] or any(isinstance(item, dict) and key in item for item in patch):
                return key
        return None

    def _reindex(self, key: str) -> None:
        self.key, self.index = key, {}
        node = self.first
        while node != _END:
            item = self.items[node]
            if not self.died[node] and isinstance(item, dict) and item.get(key) is not None:
                self._index(item[key], node)
            node = self.after[node]

    def _index(self, name: Any, node: int) -> None:
        try:
            known = self.index.get(name)
        except TypeError:  # a name that is not hashable (the schema refuses it) names no item
            return
        if known is None:
            self.index[name] = node
        elif type(known) is int:
            self.index[name] = [known, node]
        else:
            known.append(node)

    def _stood(self) -> list[int]:
        """The items as the list stood before this patch, in order."""
        if self._before_patch is None:
            patch, out, node = self.patches, [], self.first
            while node != _END:
                if self.born[node] < patch and self.died[node] in (0, patch):
                    out.append(node)
                node = self.after[node]
            self._before_patch = out
        return self._before_patch

    def _numbers(self) -> dict[int, int]:
        """Each item's number in this patch (0-based): the list before it, then the new items."""
        stood = self._stood()
        numbers = {node: i for i, node in enumerate(stood)}
        numbers.update((node, len(stood) + i) for i, node in enumerate(self._new))
        return numbers

    def _known(self, key: str) -> list[str]:
        """The names of the standing items, in the patch's numbering (for a suggestion)."""
        names = [self.items[node].get(key) for node in [*self._stood(), *self._new]
                 if not self.died[node] and isinstance(self.items[node], dict)]
        return [str(name) for name in names if name is not None]

    def _named(self, name: Any, key: str) -> list[int]:
        """The standing items named ``name``, in the patch's numbering."""
        try:
            found = self.index.get(name)
        except TypeError:  # a name that is not hashable names no item
            return []
        if found is None:
            return []
        items, died = self.items, self.died
        if type(found) is int:
            if not died[found] and isinstance(items[found], dict) and items[found].get(key) == name:
                return [found]
            del self.index[name]
            return []
        standing = [node for node in found if not died[node] and isinstance(items[node], dict)
                    and items[node].get(key) == name]
        if len(standing) != len(found):
            self.index[name] = standing
        if len(standing) > 1:
            numbers = self._numbers()
            standing.sort(key=numbers.__getitem__)
        return standing

    # -- a patch -----------------------------------------------------------------------------

    def patch(self, patch: list, patch_marks: Mark, edit: Patch, address: tuple) -> bool:
        """Apply one layer's edits (the merge rule of the module's docstring); whether anything
        was written."""
        self.patches += 1
        self._before_patch, self._new = None, []
        key = self.key_for(patch) or "id"
        if key != self.key:
            self._reindex(key)
        count = self.standing
        last_after: dict[int, int] = {}  # an item -> the last item this patch placed after it
        written = False
        words = vocabulary(ACTIONS, edit.lang)
        field_ = ".".join(map(str, address[1:])) or address[0]
        write, origin = edit.write, edit.origin
        viewed = type(patch_marks) is View
        if viewed:  # an item's marks: its index in this patch
            self.sources.append((patch_marks.pos, patch_marks.txt, patch_marks.prefix))  # type: ignore[union-attr]
        source = len(self.sources) - 1
        log = edit.log(address) if edit.log is not None else None
        logged = log.labels if log is not None and log.earlier is None else None  # fast: a dict
        items, layers, died, index_of = self.items, self.layers, self.died, self.index
        others = [k for k in KEYS if k != key]
        # an item added at the end: each column's append, bound once
        columns = (items.append, self.marks.append, self.srcs.append, layers.append,
                   self.after.append, self.before.append, self.born.append, died.append,
                   self._new.append)
        holding, patches, after = self.holding, self.patches, self.after
        for index, entry in enumerate(patch):
            # The edit of most rows: a new item at the end, or an item replaced by its name
            # (no edit word, a standing item of that name or none), done here without a call.
            if type(entry) is dict and _EDIT_KEYS.isdisjoint(entry) and \
                    (name := entry.get(key)) is not None:
                try:
                    found = index_of.get(name, _END)
                except TypeError:  # a name that is not hashable: the general path says so
                    found = None
                if found == _END or found is not None and type(found) is int and not died[found] \
                        and isinstance(items[found], dict) and items[found].get(key) == name:
                    item = entry if _PLAIN.issuperset(map(type, entry.values())) else \
                        {k: v if type(v) in _PLAIN else plain_copy(v) for k, v in entry.items()}
                    label = name if type(name) is str else str(name)
                    if logged is not None and label not in logged:
                        logged[label] = index
                    elif not (write(address + (label,), item, (index,)) if log is None
                              else log.write(label, index)):
                        continue
                    written = True
                    item_marks: Any = index if viewed else patch_marks.kid(index)
                    src = source if viewed else -1
                    if found == _END:  # ``_make`` and ``_link_after(node, self.last)`` in one
                        node, last = len(items), self.last
                        add_item, add_marks, add_src, add_layer, add_after, add_before, add_born, \
                            add_died, add_new = columns
                        add_item(item)
                        add_marks(item_marks)
                        add_src(src)
                        add_layer(origin)
                        add_after(_END)
                        add_before(last)
                        add_born(patches)
                        add_died(0)
                        add_new(node)
                        if last == _END:
                            self.first = node
                        else:
                            after[last] = node
                        self.last = node
                        self.standing += 1
                        holding[key] += 1
                        for other in others:
                            if other in item:
                                holding[other] += 1
                        index_of[name] = node
                    else:
                        self._count(items[found], -1)
                        self._count(item, 1)
                        items[found], self.marks[found], layers[found] = item, item_marks, origin
                        self.srcs[found] = src
                    continue
            here = (index,)
            remove = entry.get("remove") is True
            action = words["remove" if remove else "replace"]
            if _EDIT_KEYS.isdisjoint(entry) and _PLAIN.issuperset(map(type, entry.values())):
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
                        or self.died[self._stood()[at - 1]]:
                    edit.report(NO_SUCH_ITEM, here + ("at",), rule=edit.rule, row=label, action=action,
                                field=field_, hint=f" (1..{count})")
                    continue
                target = self._stood()[at - 1]
            elif name is not None:
                label = str(name)
                matches = self._named(name, key)
                if len(matches) > 1:
                    numbers = self._numbers()
                    edit.report(AMBIGUOUS_ITEM, here, rule=edit.rule, row=label, count=len(matches),
                                field=field_, key=key,
                                positions=", ".join(str(numbers[i] + 1) for i in matches))
                    continue
                target = matches[0] if matches else None
                if target is None and remove:
                    edit.report(NO_SUCH_ITEM, here, rule=edit.rule, row=label, action=action, field=field_,
                                hint=did_you_mean(label, self._known(key)))
                    continue
            else:
                edit.report(ITEM_WITHOUT_ADDRESS, here, rule=edit.rule, field=field_, key=key)
                continue
            anchor: int | None = None
            if where:
                wanted = entry[where[0]]
                found = self._named(wanted, key)
                if not found:
                    edit.report(NO_SUCH_ANCHOR, here + (where[0],), word=where[0], anchor=wanted,
                                field=field_, rule=edit.rule,
                                hint=did_you_mean(str(wanted), self._known(key)))
                    continue
                anchor = found[0]
            if not (write(address + (label,), None if remove else item, here) if log is None
                    else log.write(label, index)):
                continue
            written = True
            item_marks = index  # read in place (patch_marks.kid(index)): no object per row
            src = source
            if not viewed or len(item) != len(entry):
                src = -1
                item_marks = patch_marks.kid(index)
                if len(item) != len(entry):  # the edit's own words have no place in the item
                    item_marks = item_marks.without(EDIT_KEYS)
            if remove:
                self._remove(target)  # type: ignore[arg-type]
            elif anchor is not None or target is None:
                if target is not None:
                    self._remove(target)
                node = self._make(item, item_marks, src, origin)
                if name is not None:
                    self._index(name, node)
                if anchor is None:
                    self._link_after(node, self.last)
                elif where[0] == "before":
                    self._link_after(node, self.before[anchor])
                else:
                    end = anchor  # after what this patch placed after the anchor already
                    while end in last_after:
                        end = last_after[end]
                    self._link_after(node, end)
                    last_after[anchor] = node
            else:
                self._count(self.items[target], -1)
                self._count(item, 1)
                self.items[target], self.marks[target], self.layers[target] = item, item_marks, origin
                self.srcs[target] = src
        self.written = self.written or written
        return written

    def settle(self) -> tuple[list, Mark, list[str]]:
        """The list, its marks and the layer of each item (the list as it was when nothing was
        written)."""
        if not self.written:
            return self.old, self.old_marks, self.first_layers
        order: list[int] = []  # the standing items, in order
        node, died, after = self.first, self.died, self.after
        while node != _END:
            if not died[node]:
                order.append(node)
            node = after[node]
        items, marks, srcs, layers = (_picked(column, order) for column in
                                      (self.items, self.marks, self.srcs, self.layers))
        return items, Rows(self.old_marks, marks, srcs, self.sources), layers


def _picked(column: list, order: list[int]) -> list:
    """``[column[i] for i in order]``, picked in C."""
    if len(order) < 2:
        return [column[i] for i in order]  # itemgetter of one gives the item, not a tuple
    return list(itemgetter(*order)(column))
