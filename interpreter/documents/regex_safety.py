"""Regular expressions in rule schemas (``pattern``, ``patternProperties``) that can backtrack for
ever: a repeated group whose body repeats what it starts with (``(a+)+``), an alternation under a
repetition (``(a|aa)+``), a back-reference, or three repetitions in a row over shared characters
(``a*a*a*``). Python's ``re`` has no time limit, so such a pattern is refused when it is read."""
from __future__ import annotations

import re
import re._constants as C  # type: ignore[import-not-found]  # noqa: N812 - private module of re, no stubs: the names of the parsed pattern's nodes
import re._parser as parser  # type: ignore[import-not-found]  # private module of re, no stubs
from typing import Any

from rules_dsl.errors import define
from rules_dsl.words import define_words, vocabulary

BACKTRACKING = define(
    "MPR324", "the pattern {pattern!r} can take a very long time on some texts ({why}); rewrite it "
              "without {why}",
    "パターン {pattern!r} は入力によって極端に時間がかかります（{why_ja}）。{why_ja}を使わずに書き直してください")

_RISKS = ("a repeated group that repeats its own start", "alternatives under a repetition",
          "a back-reference", "three repetitions of shared characters in a row")
WHY_JA = vocabulary(define_words("regex.why", dict(zip(_RISKS, _RISKS)), dict(zip(_RISKS, (
    "先頭を繰り返すグループの繰り返し", "繰り返しの中の選択肢", "後方参照", "同じ文字を繰り返す並び")))), "ja")
_SAMPLE = [chr(c) for c in range(0x250)] + list("　あアー漢ｱ０Ａ\u3000\u200b")
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def backtracking_risk(pattern: str) -> dict[str, str] | None:
    """The message arguments of ``BACKTRACKING`` when ``pattern`` can backtrack for ever."""
    try:
        parsed = parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None  # an invalid pattern is reported as such elsewhere
    why = _risk(list(parsed), inside_repeat=False)
    return None if why is None else {"pattern": pattern, "why": why, "why_ja": WHY_JA[why]}


def _risk(items: list[tuple[Any, Any]], inside_repeat: bool) -> str | None:
    shared = 0
    previous: frozenset[str] | None = None
    for op, av in items:
        if op is C.GROUPREF or op is C.GROUPREF_EXISTS:
            return "a back-reference"
        if op is C.BRANCH:
            if inside_repeat:
                return "alternatives under a repetition"
            for branch in av[1]:
                why = _risk(list(branch), inside_repeat)
                if why:
                    return why
        elif op is C.SUBPATTERN:
            why = _risk(list(av[-1]), inside_repeat)
            if why:
                return why
        elif op in (C.ASSERT, C.ASSERT_NOT, C.ATOMIC_GROUP):
            why = _risk(list(av[-1] if op is not C.ATOMIC_GROUP else av), inside_repeat)
            if why:
                return why
        if op in _REPEATS and op is not C.POSSESSIVE_REPEAT and av[1] > 1:
            body = list(av[2])
            if _nested_repeat_at_start(body):
                return "a repeated group that repeats its own start"
            why = _risk(body, inside_repeat=True)
            if why:
                return why
            chars = _chars(body)
            if chars is not None and previous is not None and chars & previous:
                shared += 1
                if shared >= 2:
                    return "three repetitions of shared characters in a row"
            previous = chars if chars is not None else previous
        elif op not in (C.AT,) and not (op in _REPEATS and av[0] == 0):
            previous, shared = None, 0
    return None


def _nested_repeat_at_start(body: list[tuple[Any, Any]]) -> bool:
    """Whether an unbounded repetition inside ``body`` can match what ``body`` starts with."""
    inner = _unbounded_chars(body)
    if not inner:
        return False
    return all(edge is None or bool(edge & inner)
               for edge in (_edge_chars(body, False), _edge_chars(body, True)))


def _unbounded_chars(items: list[tuple[Any, Any]]) -> frozenset[str]:
    found: set[str] = set()
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            found |= _chars(list(av[2])) or set(_SAMPLE)
        elif op is C.SUBPATTERN:
            found |= _unbounded_chars(list(av[-1]))
        elif op is C.BRANCH:
            for branch in av[1]:
                found |= _unbounded_chars(list(branch))
    return frozenset(found)


def _edge_chars(items: list[tuple[Any, Any]], last: bool) -> frozenset[str] | None:
    """The characters a match of ``items`` can start (``last``: end) with when that edge is one
    mandatory character (a literal or a class); None when it can start or end otherwise."""
    for op, av in (reversed(items) if last else items):
        if op is C.AT:
            continue
        if op is C.SUBPATTERN:
            return _edge_chars(list(av[-1]), last)
        return _chars([(op, av)]) if op in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY) else None
    return None


def _chars(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """The sample characters one single-character item matches (None: not a single character)."""
    if len(items) != 1:
        return None
    op, av = items[0]
    if op is C.SUBPATTERN:
        return _chars(list(av[-1]))
    if op not in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY):
        return None
    return frozenset(c for c in _SAMPLE if _matches(op, av, c))


def _matches(op: Any, av: Any, c: str) -> bool:
    if op is C.LITERAL:
        return ord(c) == av
    if op is C.NOT_LITERAL:
        return ord(c) != av
    if op is C.ANY:
        return c != "\n"
    negate = bool(av) and av[0][0] is C.NEGATE
    hit = any(_in(kind, value, c) for kind, value in av if kind is not C.NEGATE)
    return hit != negate


_CATEGORIES = {C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
               C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}


def _in(kind: Any, value: Any, c: str) -> bool:
    if kind is C.LITERAL:
        return ord(c) == value
    if kind is C.RANGE:
        return value[0] <= ord(c) <= value[1]
    if kind is C.CATEGORY:
        return re.fullmatch(_CATEGORIES.get(value, r"[\s\S]"), c) is not None
    return True
