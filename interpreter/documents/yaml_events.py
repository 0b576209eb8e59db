"""Plain data with the position of every value, built from PyYAML's event stream without its
composer: duplicate keys, non-core tags, alias bombs and deep nesting are refused, located,
before anything big is built. ``interpreter.documents.loader`` is the interface; this is its engine."""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Any

from yaml import events as ev

from rules_dsl.errors import Location, MprError, define
from rules_dsl.limits import MAX_INT_BITS

from interpreter.documents.limits import (MAX_DOCUMENTS_PER_FILE, MAX_YAML_ALIAS_NODES,
                                          MAX_YAML_ALIASES, MAX_YAML_DEPTH, MAX_YAML_INT_DIGITS,
                                          MAX_YAML_NODES)
from interpreter.documents.typing_mistakes import (FULLWIDTH_COLON, FULLWIDTH_INDENT,
                                                   KEY_THEN_FULLWIDTH_COLON)
from interpreter.documents.yaml_readings import (CORE_FIRST, Reading, compare, core_float, core_int,
                                                 core_tag, may_differ)

Path_ = tuple[str | int, ...]
Position = tuple[str, int, int]

KEY = "\x00key"
"""``positions[(*path, KEY)]`` is where the key of ``path``'s last element is written.
A NUL never survives loading, so this marker cannot collide with a real key."""
_MERGE = "\x00merge"
DEEP = 16
"""A value nested ``DEEP`` levels or more counts twice against a budget (``cost``), ``2 * DEEP``
three times, and so on: its path, kept with its position, grows with its depth."""

DUPLICATE = define("MPR207",
                   "duplicate key '{key}' on line {line}: it is already set on line {first}",
                   "キー '{key}' が {line} 行目で重複しています（{first} 行目で設定済み）")
TAG = define("MPR208", "the tag {tag} is not allowed: only plain YAML values (text, numbers, "
             "true/false, null, lists and mappings)",
             "タグ {tag} は使えません。使えるのは文字列・数値・真偽値・null・リスト・マッピングだけです")
BAD_KEY = define("MPR209", "a key must be plain text, not {what}",
                 "キーは文字列にしてください（{what} は使えません）")
ALIASES = define("MPR210", "more than {limit} aliases (*name) in one file",
                 "1 ファイルのエイリアス (*名前) が上限 {limit} 個を超えています")
NODES = define("MPR211", "the file expands to more than {limit} values (aliases included)",
               "ファイルを展開すると値が上限 {limit} 個を超えます（エイリアスを含む）")
DEPTH = define("MPR212", "nesting deeper than {limit} levels",
               "入れ子が上限の {limit} 段を超えています")
DOCUMENTS = define("MPR213", "more than {limit} documents (---) in one file",
                   "1 ファイルの文書 (---) が上限 {limit} 個を超えています")
UNKNOWN_ANCHOR = define("MPR214", "the alias *{name} names no anchor &{name} defined before it",
                        "エイリアス *{name} に対応するアンカー &{name} がそれより前にありません")
RECURSIVE = define("MPR215", "the alias *{name} is inside its own anchor &{name}",
                   "エイリアス *{name} が自分のアンカー &{name} の中にあります")
NOT_FINITE = define("MPR216", "{text} is not a finite number: write a number, or null, or "
                    "quote it as text",
                    "{text} は有限の数ではありません。数・null を書くか、文字列なら引用符で囲んでください")
BIG_INT = define("MPR217", "the integer {text} is too large (limit {limit} bits)",
                 "整数 {text} が大きすぎます（上限 {limit} ビット）")
BAD_MERGE = define("MPR218", "the merge key << needs a mapping or a list of mappings",
                   "マージキー << の値はマッピングかマッピングのリストにしてください")
BAD_TAGGED = define("MPR219", "{text} cannot be read as {tag}", "{text} は {tag} として読めません")
BUDGET = define("MPR970", "the rulesets of this extends graph hold more than {limit} values in all "
                "(aliases included); this file passes it here, and nothing more was read",
                "extends でつながるルールセットの値が合計 {limit} 個を超えています（エイリアスを含む）。"
                "このファイルのここで超え、これ以上は読んでいません")
COPIES = define("MPR972", "the aliases (*name) of this file copy more than {limit} values in all",
                "このファイルのエイリアス (*名前) が複製する値が合計 {limit} 個を超えています")
VERSION = define("MPR326", "the directive %YAML {version}: mprules reads YAML 1.2 (as editors and "
                 "check-jsonschema do without it); remove the line, and quote the values YAML 1.1 "
                 "reads differently ('yes', '1:30')",
                 "%YAML {version} の指定があります。mprules は YAML 1.2 で読みます（指定がなければエディタも"
                 "check-jsonschema も同じ）。この行を消し、YAML 1.1 で読み方が変わる値は引用符で囲んで"
                 "ください（'yes'、'1:30'）")
_CORE = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (_CORE + n for n in ("str", "null", "bool", "int", "float"))
_MAP, _SEQ = _CORE + "map", _CORE + "seq"
_CORE_TRUE = frozenset(("true", "True", "TRUE"))
_CORE_BOOLS = _CORE_TRUE | {"false", "False", "FALSE"}
_SCALAR, _ALIAS = ev.ScalarEvent, ev.AliasEvent
_MAPPING_START, _SEQUENCE_START = ev.MappingStartEvent, ev.SequenceStartEvent
_MAPPING_END, _SEQUENCE_END = ev.MappingEndEvent, ev.SequenceEndEvent
_CLOSE = frozenset((ev.MappingEndEvent, ev.SequenceEndEvent))
# an entry is (path, position, written text or None)
_TEXT, _PATH_POSITION, _PATH_TEXT = itemgetter(2), itemgetter(0, 1), itemgetter(0, 2)


@dataclass(frozen=True, slots=True)
class Built:
    """One document as built: its data, positions, index in the file, first line, texts, and
    the plain scalars another YAML reader reads differently (``readings``, in file order)."""

    data: Any
    positions: dict[Path_, Position]
    index: int
    line: int
    texts: dict[Path_, str]
    readings: tuple[tuple[Position, Reading], ...] = ()
    nodes: int = 0  # values of the document, aliases expanded
    cost: int = 0  # the same, each counted once more for every ``DEEP`` levels it is nested


class _Frame:
    """An open mapping or sequence while its events stream by."""

    __slots__ = ("path", "value", "anchor", "start", "nodes", "height", "key", "key_lines",
                 "merge", "mapping")

    def __init__(self, path: Path_, value: Any, anchor: str | None, start: int,
                 nodes: int) -> None:
        self.path, self.value, self.anchor = path, value, anchor
        self.start, self.nodes, self.height = start, nodes, 1
        self.key: str | None = None
        self.key_lines: dict[str, int] = {}
        self.merge: tuple[Any, int, int] | None = None
        self.mapping = type(value) is dict


class Builder:
    """Turns an event stream into documents (plain data, positions, texts), enforcing the
    limits as it goes: feed it every event, then read ``documents``."""

    def __init__(self, file: str, budget: tuple[int, int] | None = None) -> None:
        self.file = file
        # values this file may hold (MAX_YAML_NODES), and the cost a budget over many files
        # (what is left of it, its whole) leaves it: a value's positions grow with its depth
        self.max_nodes = MAX_YAML_NODES
        self.max_cost = budget[0] if budget is not None else math.inf
        self.budget = budget
        self.documents: list[Built] = []
        self.index = -1
        self.aliases = 0
        self.nodes = 0
        self.cost = 0  # values weighted by depth (``cost``), against the budget
        self.first_node = self.first_cost = 0  # ``nodes`` and ``cost`` when the document began
        self.copied = 0  # values the aliases copied
        self._reset()

    def _reset(self) -> None:
        self.stack: list[_Frame] = []
        self.entries: list[tuple[Path_, Position, str | None] | None] = []
        self.anchors: dict[str, tuple[Any, list, int, int]] = {}
        self.open_anchors: set[str] = set()
        self.readings: list[tuple[Position, Reading]] = []
        self.root: Any = None
        self.root_line = 1

    def _pos(self, event: ev.Event) -> Position:
        line, column = _start(event)
        return (self.file, line + 1, column + 1)

    def _error(self, code: str, event: ev.Event, **args: Any) -> MprError:
        _, line, column = self._pos(event)
        return MprError(code, Location(self.file, line, column), **args)

    def feed(self, event: ev.Event) -> None:
        kind = type(event)
        typed: Any = event  # of the type ``kind`` says
        stack = self.stack
        if stack and stack[-1].key is None and stack[-1].mapping and kind not in _CLOSE:
            self._key(event)
        elif kind is _SCALAR:
            self._scalar_event(typed)
        elif kind is _MAPPING_START or kind is _SEQUENCE_START:
            self._open(typed, {} if kind is _MAPPING_START else [])
        elif kind in _CLOSE:
            self._close()
        elif kind is _ALIAS:
            self._alias(typed)
        elif kind is ev.DocumentStartEvent:
            version = typed.version
            if version is not None and tuple(version) != (1, 2):
                raise self._error(VERSION, event, version=".".join(map(str, version)))
            self.index += 1
            if self.index >= MAX_DOCUMENTS_PER_FILE:
                raise self._error(DOCUMENTS, event, limit=MAX_DOCUMENTS_PER_FILE)
            self._reset()
            self.first_node, self.first_cost = self.nodes, self.cost
        elif kind is ev.DocumentEndEvent and self.root is not None:
            entries = list(filter(None, self.entries))  # an entry is a tuple of three, or None
            written = compress(entries, map(is_not, map(_TEXT, entries), repeat(None)))
            self.documents.append(Built(
                self.root, dict(map(_PATH_POSITION, entries)), self.index, self.root_line,
                dict(map(_PATH_TEXT, written)), tuple(self.readings), self.nodes - self.first_node,
                self.cost - self.first_cost))

    def run(self, events: Any) -> None:
        """``feed`` every event of ``events``: the commonest ones (a plain or quoted key; a
        scalar value without tag or anchor; a collection without tag or anchor opened and
        closed) on a short path that does what ``feed`` does for them, every other event (and
        every one that may end in a finding) through ``feed``. The open collection's fields are
        kept in local variables and written back to its frame before ``feed`` sees it. A plain
        scalar's reading is worked out once per text (a table repeats a few)."""
        feed = self.feed
        file = self.file
        limit = self.max_nodes
        cost_limit = self.max_cost
        plain_seen: dict[str, tuple[Any, str | None, Reading | None]] = {}
        keys_seen: dict[str, str] = {}  # each key's text once (every row repeats its keys)
        lines: dict[int, int] = {}  # each line number once (a row's fields share their line)
        stack = self.stack
        entries = self.entries
        add = entries.append
        readings = self.readings
        nodes, cost = self.nodes, self.cost
        weight = 1  # what a value in ``top`` costs
        top: Any = None  # the open collection (its ``key`` lives in ``key`` meanwhile)
        key: Any = None
        path: Path_ = ()  # top's path, value, whether it is a mapping, its keys' lines
        container: Any = None
        mapping = False
        key_lines: dict[str, int] = {}
        for event in events:
            kind = type(event)
            if top is not None:
                if kind is _SCALAR:
                    if event.tag is None and not event.anchor:
                        text = event.value
                        if "\uff1a" not in text:
                            mark: Any = event.start_mark  # an event the parser made has a mark
                            line = lines.get(mark.line)
                            if line is None:
                                line = lines[mark.line] = mark.line + 1
                            if mapping:
                                if key is None:  # a key
                                    if not ((event.implicit[0] and (text == "<<" or text[:1] == "\u3000"))
                                            or text in key_lines):
                                        text = keys_seen.setdefault(text, text)
                                        key_lines[text] = line
                                        key = text
                                        add((path + (text, KEY), (file, line, mark.column + 1), None))
                                        continue
                                elif key is not _MERGE:
                                    if event.implicit[0]:
                                        known = plain_seen.get(text)
                                        if known is None:
                                            count = len(readings)
                                            self.nodes = nodes
                                            value, written = self._scalar(event)
                                            known = plain_seen[text] = (
                                                value, written,
                                                readings[-1][1] if len(readings) > count else None)
                                        else:
                                            value, written, reading = known
                                            if reading is not None:
                                                readings.append(((file, line, mark.column + 1), reading))
                                    else:
                                        value, written = text, None
                                    nodes += 1
                                    cost += weight
                                    if nodes > limit or cost > cost_limit:
                                        self.nodes, self.cost = nodes, cost
                                        raise self._nodes_error(event)
                                    add((path + (key,), (file, line, mark.column + 1), written))
                                    container[key] = value
                                    key = None
                                    continue
                            else:
                                if event.implicit[0]:
                                    known = plain_seen.get(text)
                                    if known is None:
                                        count = len(readings)
                                        self.nodes = nodes
                                        value, written = self._scalar(event)
                                        known = plain_seen[text] = (
                                            value, written,
                                            readings[-1][1] if len(readings) > count else None)
                                    else:
                                        value, written, reading = known
                                        if reading is not None:
                                            readings.append(((file, line, mark.column + 1), reading))
                                else:
                                    value, written = text, None
                                nodes += 1
                                cost += weight
                                if nodes > limit or cost > cost_limit:
                                    self.nodes, self.cost = nodes, cost
                                    raise self._nodes_error(event)
                                add((path + (len(container),), (file, line, mark.column + 1), written))
                                container.append(value)
                                continue
                elif kind is _MAPPING_END or kind is _SEQUENCE_END:
                    if len(stack) > 1:
                        frame = top
                        parent = stack[-2]
                        if frame.merge is None and not frame.anchor and parent.key is not _MERGE:
                            stack.pop()
                            if parent.height <= frame.height:
                                parent.height = frame.height + 1
                            top = parent
                            path, container, mapping = top.path, top.value, top.mapping
                            key_lines = top.key_lines
                            weight = 1 + len(stack) // DEEP
                            if mapping:
                                container[top.key] = frame.value
                                top.key = key = None
                            else:
                                container.append(frame.value)
                            continue
                elif kind is _MAPPING_START or kind is _SEQUENCE_START:
                    if event.tag is None and not event.anchor and len(stack) < MAX_YAML_DEPTH \
                            and (not mapping or (key is not None and key is not _MERGE)):
                        nodes += 1
                        cost += weight
                        if nodes > limit or cost > cost_limit:
                            self.nodes, self.cost = nodes, cost
                            raise self._nodes_error(event)
                        child = path + (key,) if mapping else path + (len(container),)
                        opened: Any = event.start_mark  # an event the parser made has a mark
                        line = lines.get(opened.line)
                        if line is None:
                            line = lines[opened.line] = opened.line + 1
                        top.key = key
                        top = _Frame(child, {} if kind is _MAPPING_START else [], None,
                                     len(entries), nodes - 1)
                        add((child, (file, line, opened.column + 1), None))
                        stack.append(top)
                        path, container, mapping, key_lines = top.path, top.value, top.mapping, top.key_lines
                        key = None
                        weight = 1 + len(stack) // DEEP
                        continue
                top.key = key
            self.nodes, self.cost = nodes, cost
            feed(event)
            nodes, cost = self.nodes, self.cost
            if stack is not self.stack:  # a new document
                stack, entries, readings = self.stack, self.entries, self.readings
                add = entries.append
            if stack:
                top = stack[-1]
                path, container, mapping = top.path, top.value, top.mapping
                key_lines, key = top.key_lines, top.key
            else:
                top = None
            weight = 1 + len(stack) // DEEP
        self.nodes, self.cost = nodes, cost

    def _nodes_error(self, event: ev.Event) -> MprError:
        if self.budget is not None and self.nodes <= self.max_nodes:
            return self._error(BUDGET, event, limit=self.budget[1])
        return self._error(NODES, event, limit=self.max_nodes)

    def _scalar_event(self, event: ev.ScalarEvent) -> None:
        """A scalar that is a value (not a key): the commonest event, kept on a short path."""
        if "：" in event.value:
            self._fullwidth_colon(event)
        value, text = self._scalar(event)
        self.nodes += 1
        self.cost += 1 + len(self.stack) // DEEP
        if self.nodes > self.max_nodes or self.cost > self.max_cost:
            raise self._nodes_error(event)
        mark: Any = event.start_mark  # an event the parser made has a mark
        stack = self.stack
        if not stack or event.anchor:
            path = self._child_path()
            start = len(self.entries)
            self.entries.append((path, (self.file, mark.line + 1, mark.column + 1), text))
            self._done(value, path, event.anchor, start, 1, 0)
            return
        top = stack[-1]
        if top.mapping:
            key = top.key
            assert key is not None  # in a mapping, a value comes after its key
            self.entries.append(((*top.path, key), (self.file, mark.line + 1, mark.column + 1), text))
            if key is _MERGE:
                self._done(value, (*top.path, key), None, len(self.entries) - 1, 1, 0)
                return
            top.value[key] = value
            top.key = None
        else:
            items = top.value
            self.entries.append(((*top.path, len(items)), (self.file, mark.line + 1, mark.column + 1),
                                 text))
            items.append(value)

    def _fullwidth_colon(self, event: ev.ScalarEvent) -> None:
        """``allowance：3`` written on a line of its own under a key, where ``allowance: 3``
        (an entry of a mapping) was meant; a text after its key on the same line is left be."""
        top = self.stack[-1] if self.stack else None
        if (top is None or not top.mapping or event.tag is not None or not event.implicit[0]):
            return
        match = KEY_THEN_FULLWIDTH_COLON.match(event.value)
        line, column = _start(event)
        if match and top.key is not None and line + 1 > top.key_lines.get(top.key, 0):
            raise MprError(FULLWIDTH_COLON, Location(self.file, line + 1, column + match.end()),
                           key=match.group(1))

    def _count(self, event: ev.Event, nodes: int) -> None:
        self.nodes += nodes
        self.cost += nodes * (1 + len(self.stack) // DEEP)
        if self.nodes > self.max_nodes or self.cost > self.max_cost:
            raise self._nodes_error(event)

    def _child_path(self) -> Path_:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if type(top.value) is list:
            return (*top.path, len(top.value))
        assert top.key is not None  # in a mapping, a value comes after its key
        return (*top.path, top.key)

    def _key(self, event: ev.Event) -> None:
        top = self.stack[-1]
        if type(event) is ev.AliasEvent:
            raise self._error(BAD_KEY, event, what=f"*{event.anchor}")
        if type(event) is not ev.ScalarEvent:
            what = "{...}" if type(event) is ev.MappingStartEvent else "[...]"
            raise self._error(BAD_KEY, event, what=what)
        if event.tag not in (None, "!", _STR, _INT, _FLOAT, _BOOL, _NULL):
            raise self._error(TAG, event, tag=_short(event.tag))
        key = event.value
        if event.tag is None and event.implicit[0] and key.startswith("\u3000"):
            raise self._error(FULLWIDTH_INDENT, event)
        match = (KEY_THEN_FULLWIDTH_COLON.match(key) if "：" in key and event.tag is None
                 and not event.style else None)
        mark: Any = event.start_mark  # an event the parser made has a mark
        if match:  # ``title：{ja: 表}`` read as the key ``title：{ja``
            raise MprError(FULLWIDTH_COLON, Location(self.file, mark.line + 1,
                                                     mark.column + match.end()), key=match.group(1))
        if event.tag is None and event.implicit[0] and key == "<<":
            key = _MERGE
        line = mark.line + 1
        first = top.key_lines.get(key)
        if first is not None:
            raise self._error(DUPLICATE, event, key=key.replace(_MERGE, "<<"), line=line,
                              first=first)
        top.key_lines[key] = line
        top.key = key
        if key is not _MERGE:
            self.entries.append(((*top.path, key, KEY), (self.file, line, mark.column + 1), None))

    def _open(self, event: ev.CollectionStartEvent, value: Any) -> None:
        if event.tag not in (None, "!", _MAP if type(value) is dict else _SEQ):
            raise self._error(TAG, event, tag=_short(event.tag))
        if len(self.stack) >= MAX_YAML_DEPTH:
            raise self._error(DEPTH, event, limit=MAX_YAML_DEPTH)
        self._count(event, 1)
        path = self._child_path()
        start = len(self.entries)
        self.entries.append((path, self._pos(event), None))
        if event.anchor:
            self.open_anchors.add(event.anchor)
        self.stack.append(_Frame(path, value, event.anchor, start, self.nodes - 1))

    def _close(self) -> None:
        frame = self.stack.pop()
        if frame.merge is not None:
            self._merge(frame)
        if frame.anchor:
            self.open_anchors.discard(frame.anchor)
        self._done(frame.value, frame.path, frame.anchor, frame.start,
                   self.nodes - frame.nodes, frame.height)

    def _alias(self, event: ev.AliasEvent) -> None:
        name = event.anchor or ""  # an alias always names its anchor
        if name in self.open_anchors:
            raise self._error(RECURSIVE, event, name=name)
        anchored = self.anchors.get(name)
        if anchored is None:
            raise self._error(UNKNOWN_ANCHOR, event, name=name)
        self.aliases += 1
        if self.aliases > MAX_YAML_ALIASES:
            raise self._error(ALIASES, event, limit=MAX_YAML_ALIASES)
        value, relative, nodes, height = anchored
        self.copied += nodes
        if self.copied > MAX_YAML_ALIAS_NODES:
            raise self._error(COPIES, event, limit=MAX_YAML_ALIAS_NODES)
        self._count(event, nodes)
        if len(self.stack) + height > MAX_YAML_DEPTH:
            raise self._error(DEPTH, event, limit=MAX_YAML_DEPTH)
        path = self._child_path()
        start = len(self.entries)
        for rel, pos, text in relative:
            self.entries.append(((*path, *rel), pos if rel else self._pos(event), text))
        self._done(_copy(value), path, None, start, nodes, height)

    def _done(self, value: Any, path: Path_, anchor: str | None, start: int, nodes: int,
              height: int) -> None:
        if anchor:
            depth = len(path)
            relative = [(e[0][depth:], e[1], e[2]) for e in self.entries[start:] if e is not None]
            self.anchors[anchor] = (value, relative, nodes, height)
        if not self.stack:
            self.root = value
            self.root_line = self._position_at(start)[1] if start < len(self.entries) else 1
            return
        top = self.stack[-1]
        top.height = max(top.height, height + 1)
        if type(top.value) is list:
            top.value.append(value)
            return
        if top.key is _MERGE:
            if not (type(value) is dict or (type(value) is list and value
                                            and all(type(v) is dict for v in value))):
                pos = self._position_at(start)
                raise MprError(BAD_MERGE, Location(self.file, pos[1], pos[2]))
            top.merge = (value, start, len(self.entries))
        else:
            top.value[top.key] = value
        top.key = None

    def _position_at(self, index: int) -> Position:
        """The position of entry ``index`` (one just written: entries are emptied only by a merge)."""
        entry = self.entries[index]
        return entry[1] if entry is not None else (self.file, 1, 1)

    def _merge(self, frame: _Frame) -> None:
        """Fold ``<<`` into ``frame``: written keys win, then earlier merged mappings."""
        assert frame.merge is not None  # _close merges only a frame that has a merge key
        merged, start, end = frame.merge
        sources = merged if type(merged) is list else [merged]
        owner: dict[str | int, int] = {}
        for number, source in enumerate(sources):
            for key in source:
                if key not in frame.value and key not in owner:
                    owner[key] = number
        depth = len(frame.path) + 1 + (type(merged) is list)
        moved = []
        for index in range(start, end):
            entry = self.entries[index]
            self.entries[index] = None
            if entry is None or len(entry[0]) <= depth:
                continue
            path = entry[0]
            place: str | int = path[depth - 1] if type(merged) is list else 0
            if owner.get(path[depth]) == place:
                moved.append(((*frame.path, *path[depth:]), entry[1], entry[2]))
        self.entries.extend(moved)
        for key, number in owner.items():
            frame.value[key] = sources[number][key]

    def _scalar(self, event: ev.ScalarEvent) -> tuple[Any, str | None]:
        """The value of a scalar read by YAML 1.2's core schema, and its written text when it is
        plain and not text; a plain scalar another reader reads differently is noted."""
        text = event.value
        tag = event.tag
        plain = tag is None and event.implicit[0]
        if plain:
            number = decimal(text)
            if number is not None:
                if may_differ(text):  # ``014``: octal in YAML 1.1
                    reading = compare(text, number)
                    if reading is not None:
                        self.readings.append((self._pos(event), reading))
                return number, text
        if tag in (None, "!"):
            tag = core_tag(text) if plain and (not text or text[0] in CORE_FIRST) else _STR
        elif tag not in (_STR, _NULL, _BOOL, _INT, _FLOAT):
            raise self._error(TAG, event, tag=_short(tag))
        value: Any = text
        if tag == _NULL:
            value = None
        elif tag == _BOOL:
            if text not in _CORE_BOOLS:
                raise self._error(BAD_TAGGED, event, text=text, tag=_short(tag))
            value = text in _CORE_TRUE
        elif tag == _INT:
            value = self._int(event, text)
        elif tag == _FLOAT:
            value = self._float(event, text)
        if plain and may_differ(text):
            reading = compare(text, value)
            if reading is not None:
                self.readings.append((self._pos(event), reading))
        return value, (text if plain and tag != _STR else None)

    def _int(self, event: ev.ScalarEvent, text: str) -> int:
        if len(text) > MAX_YAML_INT_DIGITS:
            raise self._error(BIG_INT, event, text=text[:20] + "…", limit=MAX_INT_BITS)
        if core_tag(text) != _INT:  # ``!!int yes``
            raise self._error(BAD_TAGGED, event, text=text, tag=_short(_INT))
        value = core_int(text)
        if value.bit_length() > MAX_INT_BITS:
            raise self._error(BIG_INT, event, text=text[:20], limit=MAX_INT_BITS)
        return value

    def _float(self, event: ev.ScalarEvent, text: str) -> float:
        if core_tag(text) not in (_FLOAT, _INT) or len(text) > MAX_YAML_INT_DIGITS:
            raise self._error(BAD_TAGGED, event, text=text[:40], tag=_short(_FLOAT))
        value = core_float(text) if not text.startswith(("0o", "0x")) else float(core_int(text))
        if not math.isfinite(value):
            raise self._error(NOT_FINITE, event, text=text)
        return value


def decimal(text: str) -> int | None:
    """The integer the core schema reads a plain scalar of decimal digits alone as (``014`` is
    14), read without the resolver; None for any other text, and for one too long or too large
    (``_scalar`` words those)."""
    if text.isdigit() and text.isascii() and len(text) <= MAX_YAML_INT_DIGITS:
        number = int(text)
        if number.bit_length() <= MAX_INT_BITS:
            return number
    return None


def _start(event: ev.Event) -> tuple[int, int]:
    """Where ``event`` starts (0-based line and column); an event the parser made has a mark."""
    mark = event.start_mark
    return (mark.line, mark.column) if mark is not None else (0, 0)


def _short(tag: str | None) -> str:
    tag = tag or "?"
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _copy(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value
