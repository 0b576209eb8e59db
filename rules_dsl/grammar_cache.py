"""The parse tables of ``grammar.lark``, made by lark once and read by ``rules_dsl.lalr`` ever after.

lark computes the LALR tables of a grammar each time a parser is made (tens of milliseconds, plus
importing lark). Here lark runs only at build time: ``python -m rules_dsl.grammar_cache`` writes
the module ``grammar_tables.py`` next to the grammar, one literal ``TABLES`` holding the grammar
text it was made from, the terminals, the lexer of each parser state, the rules and the states. At
run time it is imported like any module (Python keeps it byte-compiled, so reading it is a
fraction of a millisecond and loads no JSON decoder) and used only when its grammar text is
exactly the installed ``grammar.lark``; otherwise (a changed grammar, a missing module) lark builds
the tables again and they are kept as JSON in the user's cache directory (written atomically: a
temporary file renamed into place, so two processes at once never see half a file; a file whose
SHA-256 does not match its header is never trusted).
"""
from __future__ import annotations

import os
import re

from .cachefile import write_atomically
from .lalr import Tables

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True,
                           "maybe_placeholders": False}
FORMAT = 2
PACKAGED = "grammar_tables.py"  # the module rules_dsl.grammar_tables
_HERE = os.path.dirname(os.path.abspath(__file__))


def grammar_text() -> str:
    with open(os.path.join(_HERE, "grammar.lark"), encoding="utf-8") as handle:
        return handle.read()


def grammar_digest(grammar: str) -> str:
    # start-up: hashlib (OpenSSL) loads only when tables are built or checked, never for packaged ones
    import hashlib

    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def build_tables(grammar: str) -> dict[str, Any]:
    """The tables of ``grammar`` as data, made by lark (the only place lark is imported)."""
    # start-up: lark is needed at build time only (the stored tables are read without it)
    from lark import Lark

    parser = Lark(grammar, **OPTIONS)
    table = parser.parser.parser._parse_table
    terminals = {t.name: t for t in parser.terminals}
    ignore = list(parser.ignore_tokens)
    lexers: list[Any] = []
    index: dict[frozenset[str], int] = {}

    def lexer_of(names: frozenset[str]) -> int:
        if names not in index:
            index[names] = len(lexers)
            lexers.append(_lexer([terminals[n] for n in names | set(ignore)]))
        return index[names]

    states = [[lexer_of(frozenset(n for n in table.states[s] if n in terminals)),
               {symbol: _action(action, arg, parser.rules) for symbol, (action, arg)
                in table.states[s].items()}] for s in range(len(table.states))]
    data: dict[str, Any] = _plain({"format": FORMAT, "grammar": grammar,
            "terminals": {name: t.pattern.to_regexp() for name, t in terminals.items()},
            "literals": {name: t.pattern.value for name, t in terminals.items() if t.pattern.type == "str"},
            "ignore": ignore, "lexers": lexers, "root": lexer_of(frozenset(terminals)),
            "states": states, "rules": [_rule(rule) for rule in parser.rules],
            "start": table.start_states["start"], "end": table.end_states["start"]})
    return data


def _plain(value: Any) -> Any:
    """``value`` with lark's names (``str`` subclasses) as plain ``str``: data any reader takes."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, str) else value


def _action(action: Any, arg: Any, rules: list[Any]) -> int:
    """A shift (or goto) as the state it leads to, a reduction as -(1 + the rule's index)."""
    return arg if action.name == "Shift" else -1 - rules.index(arg)


def _lexer(terminals: list[Any]) -> list[Any]:
    """[names in matching order, {pattern terminal: {keyword: keyword terminal}}]: lark's order
    (priority, then the longest possible match, then the longest pattern, then the name), with
    the keywords that a pattern matches whole read through that pattern."""
    ordered = sorted(terminals, key=lambda t: (-t.priority, -t.pattern.max_width,
                                               -len(t.pattern.value), t.name))
    if any(t.pattern.flags for t in ordered):
        raise ValueError("terminal flags are not supported by rules_dsl.lalr")
    unless: dict[str, dict[str, str]] = {}
    embedded: set[str] = set()
    for pattern in (t for t in ordered if t.pattern.type == "re"):
        for word in (t for t in ordered if t.pattern.type == "str"):
            match = re.match(pattern.pattern.to_regexp(), word.pattern.value)
            if word.priority == pattern.priority and match and match.group() == word.pattern.value:
                unless.setdefault(pattern.name, {})[word.pattern.value] = word.name
                embedded.add(word.name)
    return [[t.name for t in ordered if t.name not in embedded], unless]


def _rule(rule: Any) -> list[Any]:
    """[node name, rule name, length, kept children or None, spliced into parent, collapsed]."""
    if not rule.expansion:
        raise ValueError(f"empty rule {rule.origin.name} is not supported by rules_dsl.lalr")
    options = rule.options
    kept = [[i, not symbol.is_term and symbol.name.startswith("_")]
            for i, symbol in enumerate(rule.expansion)
            if options.keep_all_tokens or not (symbol.is_term and symbol.filter_out)]
    plain = len(kept) == len(rule.expansion) and not any(splice for _, splice in kept)
    name = rule.alias or options.template_source or rule.origin.name
    return [name, rule.origin.name, len(rule.expansion), None if plain else kept,
            rule.origin.name.startswith("_"), bool(options.expand1 and not rule.alias)]


def serialize(tables: dict[str, Any]) -> bytes:
    """A header line (format, SHA-256 of the body), then the tables as JSON."""
    # start-up: hashlib (OpenSSL) and json load only when tables are written
    import hashlib
    import json

    body = json.dumps(tables, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    header = {"format": FORMAT, "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("utf-8") + b"\n" + body


def deserialize(blob: bytes, grammar: str, verify: bool = True) -> Tables | None:
    """The tables in ``blob``, or None when they are not for ``grammar`` or are damaged."""
    # start-up: json loads only when the tables come from the user's cache, not the packaged module
    import json

    try:
        first, body = blob.split(b"\n", 1)
        header = json.loads(first)
        if header.get("format") != FORMAT:
            return None
        if verify:
            # start-up: hashlib (OpenSSL) loads only to verify cached tables, not packaged ones
            import hashlib

            if header.get("sha256") != hashlib.sha256(body).hexdigest():
                return None
        data = json.loads(body)
        if data.get("grammar") != grammar:
            return None
        return Tables(data)
    except Exception:  # a damaged or foreign file is never trusted: build the tables instead
        return None


def _user_cache() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mprules")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def packaged() -> dict[str, Any] | None:
    """The tables shipped with the code (the module ``grammar_tables``); None without it."""
    try:
        # start-up: the packaged tables load on the first parse, not with the parser's module
        from . import grammar_tables  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    data = getattr(grammar_tables, "TABLES", None)
    return data if isinstance(data, dict) else None


def load_tables() -> Tables:
    """The tables of grammar.lark: packaged when they fit, else cached, else built (and cached)."""
    grammar = grammar_text()
    shipped = packaged()
    # The module ships with the code; comparing its grammar text is the check that matters.
    if shipped is not None and shipped.get("format") == FORMAT and shipped.get("grammar") == grammar:
        return Tables(shipped)
    # start-up: pathlib loads only when the packaged tables do not fit the grammar
    from pathlib import Path

    cached = Path(_user_cache()) / f"grammar-{grammar_digest(grammar)[:16]}-v{FORMAT}.json"
    blob = _read(str(cached))
    tables = deserialize(blob, grammar) if blob is not None else None
    if tables is not None:
        return tables
    data = build_tables(grammar)
    write_atomically(cached, serialize(data))
    return Tables(data)


def module_text(tables: dict[str, Any]) -> str:
    """The source of the module ``grammar_tables`` holding ``tables``."""
    # start-up: pprint loads only when the module is written
    import pprint

    return ('"""The parse tables of grammar.lark, written by ``python -m rules_dsl.grammar_cache``: do not\n'
            'edit; run that command again after changing the grammar."""\n'
            f"TABLES = {pprint.pformat(tables, width=100, sort_dicts=False)}\n")


def write_packaged() -> str:
    """Write the module ``grammar_tables`` next to the grammar (run after changing grammar.lark)."""
    path = os.path.join(_HERE, PACKAGED)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(module_text(build_tables(grammar_text())))
    return path


if __name__ == "__main__":
    print(write_packaged())
