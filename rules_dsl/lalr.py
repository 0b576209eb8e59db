"""A small LALR(1) driver over stored tables: the contextual lexer and the shift/reduce loop that
turn expression text into a tree, without importing lark in the process that parses.

The tables come from ``grammar.lark`` through lark at build time (``rules_dsl.grammar_cache``), so
the grammar file stays the one source of the language; this module only reads them. It shapes the
tree the way lark does with ``propagate_positions=True, maybe_placeholders=False``: anonymous
punctuation dropped, ``?rule`` collapsed when it has one child, ``_rule`` spliced into its parent,
and every node placed from the first character of its first child to the end of its last, brackets
included. A test parses a corpus with both and requires the same trees and the same errors.

``parse`` calls ``build(name, meta, children)`` for each node, left to right and children first (the
order of a post-order walk), and returns what ``build`` returned for the root.
"""
from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

END = "$END"
NO_TERMINAL = "<END-OF-FILE>"


class Token(str):
    """A terminal of the text: the matched characters, its terminal name ``type`` and where it is
    (1-based ``line``/``column`` of its first character, ``end_column`` just past its last)."""

    type: str
    start_pos: int
    line: int
    column: int
    end_line: int
    end_column: int
    end_pos: int

    def __new__(cls, type_: str, value: str, start_pos: int, line: int, column: int,
                end_line: int, end_column: int, end_pos: int) -> "Token":
        token = str.__new__(cls, value)
        token.type = type_
        token.start_pos, token.line, token.column = start_pos, line, column
        token.end_line, token.end_column, token.end_pos = end_line, end_column, end_pos
        return token

    @property
    def value(self) -> str:
        return str(self)


class Meta:
    """Where a node is written: from ``line:column`` to just before ``end_line:end_column``."""

    __slots__ = ("line", "column", "end_line", "end_column")

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column


class UnexpectedInput(Exception):
    """The text is not in the language; ``line``/``column`` say where the parse stopped."""

    line: int
    column: int


class UnexpectedCharacters(UnexpectedInput):
    """No terminal of the grammar starts at ``pos_in_stream``; ``allowed`` are the terminals the
    parser would have taken there."""

    def __init__(self, pos: int, line: int, column: int, allowed: set[str]) -> None:
        super().__init__(f"unexpected character at line {line} column {column}")
        self.pos_in_stream, self.line, self.column, self.allowed = pos, line, column, allowed


class UnexpectedToken(UnexpectedInput):
    """``token`` cannot come here; ``expected`` are the terminals that could (``$END`` when the
    text could end here)."""

    def __init__(self, token: Token, expected: set[str]) -> None:
        super().__init__(f"unexpected {token.type} at line {token.line} column {token.column}")
        self.token, self.expected = token, expected
        self.line, self.column = token.line, token.column


class _Terminals:
    """Every terminal of the grammar, matched one at a time: a literal (``"+"``, ``"if"``) by
    comparing text, a pattern by its own regular expression, compiled the first time it is tried
    and shared by every parser state. A state's lexer tries its terminals in order and the first
    that matches wins, exactly as one alternation of them would; but a process that parses
    ``1+1`` compiles a few small expressions instead of one large alternation per state it
    visits (each costs about a millisecond to compile)."""

    __slots__ = ("patterns", "literals", "_compiled")

    def __init__(self, patterns: dict[str, str], literals: dict[str, str]) -> None:
        self.patterns, self.literals = patterns, literals
        self._compiled: dict[str, re.Pattern[str]] = {}

    def pattern(self, name: str) -> re.Pattern[str]:
        compiled = self._compiled.get(name)
        if compiled is None:
            compiled = self._compiled[name] = re.compile(self.patterns[name])
        return compiled


class _Lexer:
    """The terminals one parser state accepts, tried in lark's order (first match wins); a
    keyword the name pattern also matches is told apart by ``unless``."""

    __slots__ = ("order", "unless", "allowed", "_terminals", "_steps")

    def __init__(self, order: list[str], unless: dict[str, dict[str, str]],
                 terminals: _Terminals, ignore: frozenset[str]) -> None:
        self.order, self.unless, self._terminals = order, unless, terminals
        self.allowed = {name for name in order if name not in ignore} or {NO_TERMINAL}
        self._steps = [(name, terminals.literals.get(name)) for name in order]

    def match(self, text: str, pos: int) -> tuple[str, int] | None:
        """The first terminal of this state that matches at ``pos``, and where it ends."""
        for name, literal in self._steps:
            if literal is not None:
                if text.startswith(literal, pos):
                    return name, pos + len(literal)
                continue
            found = self._terminals.pattern(name).match(text, pos)
            if found is not None:
                return name, found.end()
        return None


class Tables:
    """Parse tables as stored (see ``grammar_cache``): lexers, states, rules, start and end."""

    def __init__(self, data: dict[str, Any]) -> None:
        terminals = _Terminals(data["terminals"], data.get("literals", {}))
        self.ignore = frozenset(data["ignore"])
        self.lexers = [_Lexer(order, unless, terminals, self.ignore)
                       for order, unless in data["lexers"]]
        self.root = self.lexers[data["root"]]
        self.state_lexer = [self.lexers[lexer] for lexer, _ in data["states"]]
        self.actions: list[dict[str, int]] = [actions for _, actions in data["states"]]
        self.rules = [(name, origin, size, None if keep is None else [tuple(k) for k in keep],
                       inline, collapse) for name, origin, size, keep, inline, collapse in data["rules"]]
        self.start: int = data["start"]
        self.end: int = data["end"]


class _Scan:
    """The reading position in the text, with its line and the offset where that line starts."""

    __slots__ = ("text", "pos", "line", "line_start")

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line, self.line_start = text, 0, 1, 0

    def next(self, lexer: _Lexer, ignore: frozenset[str]) -> Token | None:
        """The next token for ``lexer`` (blanks skipped), None at the end of the text."""
        text = self.text
        while self.pos < len(text):
            found = lexer.match(text, self.pos)
            if found is None:
                raise UnexpectedCharacters(self.pos, self.line, self.pos - self.line_start + 1,
                                           set(lexer.allowed))
            kind, stop = found
            value = text[self.pos:stop]
            start, line, column = self.pos, self.line, self.pos - self.line_start + 1
            newlines = value.count("\n")
            if newlines:
                self.line += newlines
                self.line_start = start + value.rindex("\n") + 1
            self.pos = start + len(value)
            if kind in ignore:
                continue
            keywords = lexer.unless.get(kind)
            if keywords is not None:
                kind = keywords.get(value, kind)
            return Token(kind, value, start, line, column, self.line,
                         self.pos - self.line_start + 1, self.pos)
        return None

    def copy(self) -> "_Scan":
        twin = _Scan(self.text)
        twin.pos, twin.line, twin.line_start = self.pos, self.line, self.line_start
        return twin


def parse(tables: Tables, text: str, build: Callable[[str, Meta, list[Any]], Any]) -> Any:
    """The tree of ``text`` as ``build`` makes it; raises UnexpectedInput when it does not parse."""
    actions, rules, ignore = tables.actions, tables.rules, tables.ignore
    states = [tables.start]
    values: list[Any] = []
    spans: list[tuple[int, int, int, int]] = []
    scan = _Scan(text)
    last: Token | None = None
    while True:
        lexer = tables.state_lexer[states[-1]]
        try:
            token = scan.next(lexer, ignore)
        except UnexpectedCharacters as error:
            # A terminal of the grammar that cannot come here is a wrong token, not a wrong character.
            try:
                found = scan.copy().next(tables.root, ignore)
            except UnexpectedCharacters:
                found = None
            if found is None:
                raise error from None
            raise UnexpectedToken(found, error.allowed) from None
        at_end = token is None
        if token is None:
            token = Token(END, "", *(_end_position(last)))
        while True:
            state_actions = actions[states[-1]]
            action = state_actions.get(token.type)
            if action is None:
                raise UnexpectedToken(token, {s for s in state_actions if s.isupper()})
            if action >= 0:
                if at_end:
                    raise UnexpectedToken(token, set())
                states.append(action)
                values.append(token)
                spans.append((token.line, token.column, token.end_line, token.end_column))
                break
            name, origin, size, keep, inline, collapse = rules[-action - 1]
            raw = values[-size:]
            first, final = spans[-size], spans[-1]
            del states[-size:], values[-size:], spans[-size:]
            span = (first[0], first[1], final[2], final[3])
            if keep is None:
                children = raw
            else:
                children = []
                for index, splice in keep:
                    if splice:
                        children.extend(raw[index])
                    else:
                        children.append(raw[index])
            if inline:
                value: Any = children
            elif collapse and len(children) == 1:
                value = children[0]
                if type(value) is Token:
                    span = (value.line, value.column, value.end_line, value.end_column)
            else:
                value = build(name, Meta(*span), children)
            goto = actions[states[-1]][origin]
            states.append(goto)
            values.append(value)
            spans.append(span)
            if at_end and goto == tables.end:
                return value
        last = token


def _end_position(last: Token | None) -> tuple[int, int, int, int, int, int]:
    if last is None:
        return 0, 1, 1, 1, 1, 0
    return last.start_pos, last.line, last.column, last.end_line, last.end_column, last.end_pos
