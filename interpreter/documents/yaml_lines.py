"""A line reader for the YAML GMs write most (``read``): block mappings and sequences, one-line
flow mappings and sequences as rows, plain and quoted one-line scalars, comments, blank lines and
``---`` between documents. It builds what ``Builder`` builds from the event stream (data, positions
in the same order, written texts, readings, nodes and cost, index and first line of each document)
without an event per value, and reads every plain scalar with ``Builder._scalar`` (once per
distinct text; a text whose first character no core value begins with, and digits, through the
functions ``_scalar`` itself calls first: ``CORE_FIRST``, ``may_differ``, ``decimal``), so there is
one copy of the rules of reading a value. The collector is paused while it reads (what it builds
holds no cycles).

It reads nothing it is not sure of: anything outside that subset, and anything that may end in a
finding (a duplicate or merge key, an anchor, an alias, a tag, a ``?`` key, a directive, a
multi-line or block scalar, an escape, a tab, a full-width space or colon, a line break other than
LF and CRLF, a key too long for a simple key, nesting near ``MAX_YAML_DEPTH``, values
``MAX_YAML_NODES`` or the budget passed, a scalar ``_scalar`` refuses) makes ``read`` give ``None``, and
the loader reads the whole file again through the event stream, so every error and its position
come from there."""
from __future__ import annotations

import gc
import re
from typing import Any

from rules_dsl.errors import MprError

from interpreter.documents.limits import MAX_DOCUMENTS_PER_FILE, MAX_YAML_DEPTH
from interpreter.documents.yaml_events import (DEEP, KEY, Builder, Built, Path_, Position,
                                                decimal)
from interpreter.documents.yaml_readings import CORE_FIRST, Reading, may_differ

__all__ = ["read"]

# characters after which the reader gives up on the whole file (a tab, a full-width space or
# colon the typing-mistake checks look at, a BOM, a line break YAML 1.1 knows and LF does not)
_GIVE_UP = ("\t", "\u3000", "\uff1a", "\ufeff", "\x85", "\u2028", "\u2029")
# a plain scalar cannot begin with one of these (``-`` may, before a character that is not a space)
_MAX_SEEN = 65_536  # distinct plain texts whose reading is kept for the next time (a few MB at most)
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_INDICATORS = frozenset(",[]{}")
_SINGLE = re.compile(r"'((?:[^']|'')*+)'")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_FLOW_PLAIN = re.compile(r"[^,\[\]{}#:]*")
# one entry of a one-line flow mapping (a plain key; a plain or quoted value) or sequence, up to
# its comma or closing bracket and the spaces after; groups: key, single-, double-quoted, plain
# value, the comma or bracket. A plain scalar here stops before ``,[]{}#:`` and trailing spaces.
_FLOW_KEY = r"([^ ,\[\]{}#:'\"&*!|>%@`?\-](?:[^,\[\]{}#:]*[^ ,\[\]{}#:])?) *: +"
_FLOW_SCALAR = (r"(?:'((?:[^']|'')*+)'|\"([^\"\\]*)\"|((?:[^ ,\[\]{}#:'\"&*!|>%@`?\-]"
                r"|-(?=[^ ,\[\]{}]))(?:[^,\[\]{}#:]*[^ ,\[\]{}#:])?))")
_FLOW_PAIR = re.compile(_FLOW_KEY + _FLOW_SCALAR + r" *([,}]) *")
_FLOW_ITEM = re.compile(r"()" + _FLOW_SCALAR + r" *([,\]]) *")
# a line of a block mapping ``key: value`` (a plain key; a plain or quoted value; a comment),
# from the key on; groups: key, single-, double-quoted, plain value, or the bracket that opens a
# flow value (read by ``_flow``, the rest of the line checked after it). A plain scalar here holds no
# ``: ``, no `` #`` and no trailing space; its first character is no indicator.
_BLOCK_PLAIN = r"(?:[^ :]++|:(?=[^ ])| +(?=[^ #:]))*+"
_BLOCK_PAIR = re.compile(
    r"([^ ,\[\]{}#&*!|>'\"%@`?:\-]" + _BLOCK_PLAIN + r") *: +"
    r"(?:(?:'((?:[^']|'')*+)'|\"([^\"\\]*)\"|((?:[^ ,\[\]{}#&*!|>'\"%@`?:\-]|-(?=[^ ]))"
    + _BLOCK_PLAIN + r"))(?: +#.*| *)\Z|([\[{]))")
_TAIL = re.compile(r"(?: +#.*| *)\Z")  # what may follow a value on its line
_QUOTED_KEY_END = re.compile(r" *:(?: +|\Z)")
_MAX_KEY = 1000  # a simple key is at most 1024 characters; past this one the event path decides
# values short of a limit at which the event path decides: none, as ``nodes`` and ``cost`` are
# counted as the event path counts them (checked by the tests), so a file is left to it only
# when it does pass a limit (then the event path refuses it where it does)
_MARGIN = 0


class _GiveUp(Exception):
    """The text is outside what ``read`` reads exactly: the event path reads it."""


class _Mark:
    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column


class _Plain:
    """What ``Builder._scalar`` reads of a plain scalar event: its text, tag, implicit, mark."""

    __slots__ = ("value", "tag", "implicit", "start_mark", "anchor", "style")

    def __init__(self, text: str, line: int, column: int) -> None:
        self.value, self.tag, self.implicit = text, None, (True, False)
        self.start_mark, self.anchor, self.style = _Mark(line, column), None, None


class _Frame:
    """An open block mapping or sequence (or a flow one, indentation -1): its indentation, value
    and path."""

    __slots__ = ("indent", "mapping", "value", "path")

    def __init__(self, indent: int, value: Any, path: Path_) -> None:
        self.indent, self.value, self.path = indent, value, path
        self.mapping = type(value) is dict


def read(text: str, builder: Builder) -> list[Built] | None:
    """The documents of ``text`` as ``builder`` would build them from its events, or ``None`` when
    the text is outside what this reader reads exactly (``builder`` is used for ``_scalar`` only,
    and the loader reads such a text with a new one)."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    for mark in _GIVE_UP:
        if mark in text:
            return None
    reader = _Reader(builder)
    collecting = gc.isenabled()
    gc.disable()  # what is read makes no cycles: the collector would only walk it again and again
    try:
        reader.run(text)
    except (_GiveUp, MprError, IndexError):
        return None
    finally:
        if collecting:
            gc.enable()
    if reader._room() < 0:
        return None
    return reader.documents


class _Reader:
    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.file = builder.file
        self.documents: list[Built] = []
        self.plain_seen: dict[str, tuple[Any, str | None, Reading | None]] = {}
        self.keys_seen: dict[str, str] = {}
        self.nodes = self.cost = 0
        self.event = _Plain("", 0, 0)
        self._start_document()
        self.index, self.open = -1, False

    # documents

    def _start_document(self) -> None:
        self.index = getattr(self, "index", -1) + 1
        if self.index >= MAX_DOCUMENTS_PER_FILE - 1:
            raise _GiveUp
        self.open = True
        self.stack: list[_Frame] = []
        self.positions: dict[Path_, Position] = {}
        self.texts: dict[Path_, str] = {}
        self.readings: list[tuple[Position, Reading]] = []
        self.builder.readings = self.readings  # where ``_scalar`` notes a reading
        self.root: Any = None
        self.started = False  # the root was begun
        self.root_line = 1
        self.pending: tuple[_Frame, Path_, int, int] | None = None
        self.first_nodes, self.first_cost = self.nodes, self.cost

    def _room(self) -> float:
        """The values that may still be read before one comes near a limit (the values of the
        file, the budget), past which the event path reads the file (and refuses it)."""
        builder = self.builder
        return min(builder.max_nodes - self.nodes, builder.max_cost - self.cost) - _MARGIN

    def _end_document(self) -> None:
        if self.pending is not None:
            self._empty()
        elif not self.started:
            self.nodes += 1  # the empty scalar of an empty document
            self.cost += 1
        if self.root is not None:
            self.documents.append(Built(
                self.root, self.positions, self.index, self.root_line, self.texts,
                tuple(self.readings), self.nodes - self.first_nodes, self.cost - self.first_cost))
        self.open = False

    def run(self, text: str) -> None:
        """Read every line of ``text``. The commonest lines (the next ``key: value`` of the open
        block mapping, the next ``- {...}`` row of the open block sequence) are read here, every
        other one by ``_line``."""
        block_pair = _BLOCK_PAIR.match
        keys_seen = self.keys_seen
        plain_seen = self.plain_seen
        file = self.file
        stack = self.stack
        top: _Frame | None = None
        for number, line in enumerate(text.split("\n"), 1):
            content = line.lstrip(" ")
            if not content or content[0] == "#":
                continue
            if not number & 1023 and self._room() < 0:
                raise _GiveUp
            indent = len(line) - len(content)
            if indent == 0 and (content.startswith("---") or content.startswith("...")):
                if content.startswith("---") and _TAIL.match(content, 3):
                    if self.open:
                        self._end_document()
                    self._start_document()
                    stack, top = self.stack, None
                    continue
                raise _GiveUp  # ``--- value``, ``...``, ``---x``, ``...: x``
            if top is not None and self.pending is None:
                if indent < top.indent:  # what ``_line`` does first: close what ends here
                    while stack and stack[-1].indent > indent:
                        stack.pop()
                    top = stack[-1] if stack else None
            if top is not None and indent == top.indent and self.pending is None:
                if top.mapping:
                    pair = block_pair(line, indent)
                    if pair is not None:
                        key, plain = pair.group(1, 4)
                        value = top.value
                        if key == "<<" or len(key) > _MAX_KEY or key in value:
                            raise _GiveUp
                        key = keys_seen.setdefault(key, key)
                        path = top.path + (key,)
                        positions = self.positions
                        positions[path + (KEY,)] = (file, number, indent + 1)
                        if plain is None:
                            self._pair_value(pair, line, number, path, top)
                            continue
                        begin = pair.start(4)
                        known = plain_seen.get(plain)
                        if known is None:
                            item, written = self._resolve(plain, number, begin)
                        else:
                            item, written, reading = known
                            if reading is not None:
                                self.readings.append(((file, number, begin + 1), reading))
                        self.nodes += 1
                        self.cost += 1 + len(stack) // DEEP
                        positions[path] = (file, number, begin + 1)
                        if written is not None:
                            self.texts[path] = written
                        value[key] = item
                        continue
                elif content[:3] == "- {":
                    self._seq_entry(top, line, indent, number)
                    continue
                elif content[:2] == "- " and len(stack) < MAX_YAML_DEPTH - 2:
                    pair = block_pair(line, indent + 2)
                    if pair is not None:  # ``- key: value``
                        key, plain = pair.group(1, 4)
                        if key == "<<" or len(key) > _MAX_KEY:
                            raise _GiveUp
                        key = keys_seen.setdefault(key, key)
                        items = top.value
                        row = top.path + (len(items),)
                        value = {}
                        items.append(value)
                        positions = self.positions
                        where = (file, number, indent + 3)
                        positions[row] = where
                        path = row + (key,)
                        positions[path + (KEY,)] = where
                        if plain is None:
                            self.nodes += 1
                            self.cost += 1 + len(stack) // DEEP
                            top = _Frame(indent + 2, value, row)
                            stack.append(top)
                            self._pair_value(pair, line, number, path, top)
                            continue
                        begin = pair.start(4)
                        known = plain_seen.get(plain)
                        if known is None:
                            item, written = self._resolve(plain, number, begin)
                        else:
                            item, written, reading = known
                            if reading is not None:
                                self.readings.append(((file, number, begin + 1), reading))
                        self.nodes += 2
                        self.cost += 1 + len(stack) // DEEP
                        top = _Frame(indent + 2, value, row)
                        stack.append(top)
                        self.cost += 1 + len(stack) // DEEP
                        positions[path] = (file, number, begin + 1)
                        if written is not None:
                            self.texts[path] = written
                        value[key] = item
                        continue
            if not self.open:
                self._start_document()
                stack = self.stack
            self._line(line, indent, number)
            top = stack[-1] if stack else None
        if self.open:
            self._end_document()

    # block structure

    def _line(self, line: str, indent: int, number: int) -> None:
        stack = self.stack
        pending = self.pending
        if pending is not None:
            parent = pending[0]
            if indent > parent.indent or (parent.mapping and indent == parent.indent
                                          and _entry(line, indent)):
                self.pending = None
                self._node(line, indent, number, pending[1], parent, False)
                return
            self._empty()
        if not self.started:
            self.started = True
            self._node(line, indent, number, (), None, False)
            return
        while stack and stack[-1].indent > indent:
            stack.pop()
        if not stack:
            raise _GiveUp  # content after the root, or under-indented
        top = stack[-1]
        if top.indent != indent:
            raise _GiveUp
        if top.mapping:
            self._map_entry(top, line, indent, number)
        elif _entry(line, indent):
            self._seq_entry(top, line, indent, number)
        elif len(stack) > 1 and stack[-2].mapping and stack[-2].indent == indent:
            stack.pop()  # the end of a sequence written at its key's indentation
            self._map_entry(stack[-1], line, indent, number)
        else:
            raise _GiveUp

    def _node(self, line: str, col: int, number: int, path: Path_, parent: _Frame | None,
              leaf: bool) -> None:
        """The node that begins at ``col`` of ``line``: a block sequence, a block mapping or
        (``leaf``: after ``- ``) a one-line value."""
        if _entry(line, col):
            frame = self._open(line, col, number, path, parent, [])
            self._seq_entry(frame, line, col, number)
            return
        pair = _BLOCK_PAIR.match(line, col)
        key = self._key(line, col) if pair is None else None
        if pair is not None or key is not None:
            frame = self._open(line, col, number, path, parent, {})
            self._map_entry(frame, line, col, number, key, pair)
            return
        if not leaf and (parent is not None or line[col] not in "[{"):
            raise _GiveUp  # a value on a line of its own, a root scalar
        end = self._value(line, col, number, path, parent, len(self.stack), block=True)
        if not _TAIL.match(line, end):
            raise _GiveUp

    def _open(self, line: str, col: int, number: int, path: Path_, parent: _Frame | None,
              value: Any) -> _Frame:
        depth = len(self.stack)
        if depth >= MAX_YAML_DEPTH - 2:
            raise _GiveUp
        self.nodes += 1
        self.cost += 1 + depth // DEEP
        self.positions[path] = (self.file, number, col + 1)
        self._attach(parent, path, value, number)
        frame = _Frame(col, value, path)
        self.stack.append(frame)
        return frame

    def _attach(self, parent: _Frame | None, path: Path_, value: Any, number: int) -> None:
        if parent is None:
            self.root, self.root_line = value, number
        elif parent.mapping:
            parent.value[path[-1]] = value
        else:
            parent.value.append(value)

    def _seq_entry(self, frame: _Frame, line: str, col: int, number: int) -> None:
        at = col + 1
        size = len(line)
        while at < size and line[at] == " ":
            at += 1
        path = frame.path + (len(frame.value),)
        if at == size or line[at] == "#":
            self.pending = (frame, path, number, col + 2)
            return
        if line[at] == "{":  # a row: the commonest entry
            if not _TAIL.match(line, self._flow(line, at, number, path, frame, len(self.stack))):
                raise _GiveUp
            return
        self._node(line, at, number, path, frame, True)

    def _key(self, line: str, col: int) -> tuple[str, int] | None:
        """The key written at ``col`` (a plain or quoted scalar followed by ``:`` and a space or
        the end of the line) and where its value may begin; None when none is written there."""
        first = line[col]
        if first in _INDICATORS and first != "'" and first != '"':
            return None  # a flow collection, or a value the event path reads
        if first == "'" or first == '"':
            match = (_SINGLE if first == "'" else _DOUBLE).match(line, col)
            if match is None:
                raise _GiveUp
            after = _QUOTED_KEY_END.match(line, match.end())
            if after is None:
                return None
            key = match.group(1)
            if first == "'" and "''" in key:
                key = key.replace("''", "'")
            if after.end() - col > _MAX_KEY:
                raise _GiveUp
            return key, after.end()
        size = len(line)
        colon = line.find(":", col)
        while colon >= 0 and colon + 1 < size and line[colon + 1] != " ":
            colon = line.find(":", colon + 1)
        if colon < 0:
            return None
        key = line[col:colon].rstrip(" ")
        if (not key or " #" in key or key == "<<"
                or colon - col > _MAX_KEY):
            raise _GiveUp
        return key, colon + 1

    def _map_entry(self, frame: _Frame, line: str, col: int, number: int,
                   key_at: tuple[str, int] | None = None, pair: Any = None) -> None:
        if key_at is None:
            if pair is None:
                pair = _BLOCK_PAIR.match(line, col)
            if pair is not None:  # a plain key, a plain or quoted value: the commonest line
                key, single, double, plain, flow = pair.groups()
                if key == "<<" or len(key) > _MAX_KEY:
                    raise _GiveUp
                key = self.keys_seen.setdefault(key, key)
                if key in frame.value:
                    raise _GiveUp
                path = frame.path + (key,)
                self.positions[path + (KEY,)] = (self.file, number, col + 1)
                if plain is not None:
                    self._plain(plain, number, pair.start(4), path, frame, len(self.stack))
                else:
                    self._pair_value(pair, line, number, path, frame)
                return
            key_at = self._key(line, col)
            if key_at is None:
                raise _GiveUp
        key, at = key_at
        key = self.keys_seen.setdefault(key, key)
        if key in frame.value:  # every key before it has its value (a pending one too)
            raise _GiveUp  # a duplicate key: the event path words it
        path = frame.path + (key,)
        self.positions[path + (KEY,)] = (self.file, number, col + 1)
        colon = at - 1 if line[at - 1] == ":" else line.rfind(":", col, at)
        size = len(line)
        while at < size and line[at] == " ":
            at += 1
        if at == size or line[at] == "#":
            self.pending = (frame, path, number, colon + 2)
            return
        end = self._value(line, at, number, path, frame, len(self.stack), block=True)
        if not _TAIL.match(line, end):
            raise _GiveUp

    def _pair_value(self, pair: Any, line: str, number: int, path: Path_, frame: _Frame) -> None:
        """The quoted or flow value of a ``_BLOCK_PAIR`` line, of the key ``path`` of ``frame``."""
        single, double, flow = pair.group(2, 3, 5)
        if flow is not None:
            if not _TAIL.match(line, self._flow(line, pair.start(5), number, path, frame,
                                                len(self.stack))):
                raise _GiveUp
            return
        self.nodes += 1
        self.cost += 1 + len(self.stack) // DEEP
        if single is not None:
            self.positions[path] = (self.file, number, pair.start(2))
            frame.value[path[-1]] = single.replace("''", "'") if "''" in single else single
        else:
            self.positions[path] = (self.file, number, pair.start(3))
            frame.value[path[-1]] = double

    def _empty(self) -> None:
        """The value still wanted (after ``key:`` or ``-``) is the empty scalar: null."""
        assert self.pending is not None
        parent, path, number, column = self.pending
        self.pending = None
        self._plain("", number, column - 1, path, parent, len(self.stack))

    # values

    def _value(self, line: str, at: int, number: int, path: Path_, parent: _Frame | None,
               depth: int, block: bool = False) -> int:
        """Read the one-line value at ``at`` into ``parent``; where it ends."""
        first = line[at]
        if first == "{" or first == "[":
            return self._flow(line, at, number, path, parent, depth)
        if first == "'" or first == '"':
            match = (_SINGLE if first == "'" else _DOUBLE).match(line, at)
            if match is None:
                raise _GiveUp
            text = match.group(1)
            if first == "'" and "''" in text:
                text = text.replace("''", "'")
            self._count(number, at, path, depth)
            self._attach(parent, path, text, number)
            return match.end()
        if first in _INDICATORS and not (first == "-" and line[at + 1:at + 2] not in ("", " ")):
            raise _GiveUp
        if block:
            comment = line.find(" #", at)
            text = (line[at:comment] if comment >= 0 else line[at:]).rstrip(" ")
            if ": " in text or text[-1] == ":":
                raise _GiveUp
        else:
            text = _FLOW_PLAIN.match(line, at).group().rstrip(" ")  # type: ignore[union-attr]
            if not text or (first == "-" and line[at + 1] in _FLOW_INDICATORS):
                raise _GiveUp
        self._plain(text, number, at, path, parent, depth)
        return at + len(text)

    def _count(self, number: int, at: int, path: Path_, depth: int) -> None:
        self.nodes += 1
        self.cost += 1 + depth // DEEP
        self.positions[path] = (self.file, number, at + 1)

    def _resolve(self, text: str, number: int, at: int) -> tuple[Any, str | None]:
        """What ``Builder._scalar`` reads the plain scalar ``text`` at ``at`` of line ``number``
        as (its value, its written text when not text), its reading noted at this place."""
        if text and text[0] not in CORE_FIRST and not may_differ(text):
            if len(self.plain_seen) < _MAX_SEEN:  # the next time, a look-up (a table repeats texts)
                self.plain_seen[text] = (text, None, None)
            return text, None  # what ``_scalar`` gives a text no reader reads as anything else
        digits = decimal(text)
        if digits is not None and not may_differ(text):
            if len(self.plain_seen) < _MAX_SEEN:
                self.plain_seen[text] = (digits, text, None)
            return digits, text  # what ``_scalar`` gives digits every reader reads alike
        known = self.plain_seen.get(text)
        if known is None:
            readings = self.readings
            count = len(readings)
            event = self.event  # one event for every call: ``_scalar`` keeps none
            event.value = text
            event.start_mark.line, event.start_mark.column = number - 1, at
            value, written = self.builder._scalar(event)  # type: ignore[arg-type]
            self.plain_seen[text] = (value, written,
                                     readings[-1][1] if len(readings) > count else None)
            return value, written
        if known[2] is not None:
            self.readings.append(((self.file, number, at + 1), known[2]))
        return known[0], known[1]

    def _plain(self, text: str, number: int, at: int, path: Path_, parent: _Frame | None,
               depth: int) -> None:
        value, written = self._resolve(text, number, at)
        self.nodes += 1
        self.cost += 1 + depth // DEEP
        self.positions[path] = (self.file, number, at + 1)
        if written is not None:
            self.texts[path] = written
        assert parent is not None  # a scalar at the root is left to the event path
        if parent.mapping:
            parent.value[path[-1]] = value
        else:
            parent.value.append(value)

    def _flow(self, line: str, at: int, number: int, path: Path_, parent: _Frame | None,
              depth: int) -> int:
        """Read the flow collection that opens at ``at`` and closes on the same line into
        ``parent``; where it ends."""
        if depth >= MAX_YAML_DEPTH - 2:
            raise _GiveUp
        file = self.file
        positions = self.positions
        positions[path] = (file, number, at + 1)
        mapping = line[at] == "{"
        value: Any = {} if mapping else []
        self._attach(parent, path, value, number)
        close = "}" if mapping else "]"
        at += 1
        while line[at] == " ":
            at += 1
        inner = depth + 1
        weight = 1 + inner // DEEP
        count = 1  # values read here, the collection itself first
        self.cost += 1 + depth // DEEP
        if line[at] == close:
            self.nodes += 1
            return at + 1
        keys_seen = self.keys_seen
        texts = self.texts
        pair = _FLOW_PAIR.match if mapping else _FLOW_ITEM.match
        plain_seen = self.plain_seen
        readings = self.readings
        frame: _Frame | None = None
        while True:
            match = pair(line, at)
            if match is not None:  # a plain key (in a mapping) and a plain or quoted value
                key, single, double, plain, mark = match.groups()
                if mapping:
                    if key == "<<" or len(key) > _MAX_KEY or key in value:
                        raise _GiveUp
                    key = keys_seen.setdefault(key, key)
                    child = path + (key,)
                    positions[child + (KEY,)] = (file, number, at + 1)
                else:
                    child = path + (len(value),)
                if plain is not None:
                    begin = match.start(4)
                    known = plain_seen.get(plain)
                    if known is None:
                        item, written = self._resolve(plain, number, begin)
                    else:
                        item, written, reading = known
                        if reading is not None:
                            readings.append(((file, number, begin + 1), reading))
                    if written is not None:
                        texts[child] = written
                elif single is not None:
                    begin = match.start(2) - 1
                    item = single.replace("''", "'") if "''" in single else single
                else:
                    begin = match.start(3) - 1
                    item = double
                count += 1
                if not count & 1023 and count > self._room():
                    raise _GiveUp  # a long list past a limit is left to the event path early
                positions[child] = (file, number, begin + 1)
                if mapping:
                    value[key] = item
                else:
                    value.append(item)
                at = match.end()
                if mark == close:
                    break
                if line[at] == close:
                    raise _GiveUp  # a comma before the closing bracket
                continue
            if mapping:  # a quoted key, or a value the expression above does not take
                first = line[at]
                if first == "'" or first == '"':
                    match = (_SINGLE if first == "'" else _DOUBLE).match(line, at)
                    if match is None:
                        raise _GiveUp
                    key = match.group(1)
                    if first == "'" and "''" in key:
                        key = key.replace("''", "'")
                    end = match.end()
                    while line[end] == " ":
                        end += 1
                else:
                    if first in _INDICATORS:
                        raise _GiveUp
                    key = _FLOW_PLAIN.match(line, at).group()  # type: ignore[union-attr]
                    end = at + len(key)
                    key = key.rstrip(" ")
                    if key == "<<":
                        raise _GiveUp
                if line[end] != ":" or line[end + 1] != " " or end - at > _MAX_KEY:
                    raise _GiveUp
                key = keys_seen.setdefault(key, key)
                if key in value:
                    raise _GiveUp
                child = path + (key,)
                positions[child + (KEY,)] = (file, number, at + 1)
                at = end + 2
                while line[at] == " ":
                    at += 1
            else:
                child = path + (len(value),)
            if frame is None:
                frame = _Frame(-1, value, path)
            at = self._value(line, at, number, child, frame, inner)
            while line[at] == " ":
                at += 1
            mark = line[at]
            if mark == ",":
                at += 1
                while line[at] == " ":
                    at += 1
                if line[at] == close:
                    raise _GiveUp  # a comma before the closing bracket
            elif mark == close:
                at += 1
                break
            else:
                raise _GiveUp
        self.nodes += count
        self.cost += (count - 1) * weight
        return at


def _entry(line: str, col: int) -> bool:
    """Whether a block sequence entry (``-`` then a space or the end of the line) is at ``col``."""
    return line[col] == "-" and (col + 1 == len(line) or line[col + 1] == " ")
