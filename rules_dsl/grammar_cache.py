"""The LALR parser of ``grammar.lark`` without rebuilding its tables in every process.

lark computes the LALR tables of a grammar each time a parser is made (tens of milliseconds). The
tables are stored instead as JSON (data only: reading it runs no code), in
``grammar_tables.json`` next to the grammar (written at build time by
``python -m rules_dsl.grammar_cache``; read-only installs use it as it is) and, when that file does
not fit the installed grammar and lark, in the user's cache directory (written atomically: a
temporary file renamed into place, so two processes at once never see half a file).

A stored file is used only when its key (the grammar text, the lark version and the parser options)
matches and the SHA-256 of its contents is the one in its first line; anything else (missing,
damaged, from another version) is ignored and the tables are built again.
"""
from __future__ import annotations

import hashlib
import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from .cachefile import write_atomically

import lark
from lark import Lark

OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True,
                           "maybe_placeholders": False}
PACKAGED = "grammar_tables.json"


def grammar_text() -> str:
    return resources.files("rules_dsl").joinpath("grammar.lark").read_text(encoding="utf-8")


def grammar_digest(grammar: str) -> str:
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def _key(grammar: str) -> str:
    options = json.dumps(OPTIONS, sort_keys=True)
    return hashlib.sha256(f"{grammar_digest(grammar)}|{lark.__version__}|{options}".encode()).hexdigest()


def _serialize(parser: Lark, grammar: str) -> bytes:
    data, memo = parser.memo_serialize([lark.lexer.TerminalDef, lark.grammar.Rule])
    body = json.dumps({"data": data, "memo": memo}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")
    header = {"key": _key(grammar), "grammar": grammar_digest(grammar), "lark": lark.__version__,
              "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("utf-8") + b"\n" + body


def _deserialize(blob: bytes, grammar: str) -> Lark | None:
    """The parser stored in ``blob``, or None when it is not for this grammar or is damaged."""
    try:
        first, body = blob.split(b"\n", 1)
        header = json.loads(first)
        if header.get("key") != _key(grammar) or \
                header.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        stored = json.loads(body)
        stored["memo"] = {int(k): v for k, v in stored["memo"].items()}
        table = stored["data"]["parser"]["parser"]
        table["tokens"] = {int(k): v for k, v in table["tokens"].items()}
        table["states"] = {int(state): {int(token): action for token, action in actions.items()}
                           for state, actions in table["states"].items()}
        parser = Lark.__new__(Lark)
        parser._load(stored)
        return parser
    except Exception:  # a damaged or foreign file is never trusted: build the tables instead
        return None


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mprules"


def _read(path: Path | Any, grammar: str) -> Lark | None:
    try:
        blob = path.read_bytes()
    except (OSError, ValueError):
        return None
    return _deserialize(blob, grammar)


def load_parser() -> Lark:
    """The parser of grammar.lark, from stored tables when they fit, else built (and stored)."""
    grammar = grammar_text()
    cached = _user_cache() / f"grammar-{_key(grammar)[:16]}.json"
    for source in (resources.files("rules_dsl").joinpath(PACKAGED), cached):
        parser = _read(source, grammar)
        if parser is not None:
            return parser
    parser = Lark(grammar, **OPTIONS)
    write_atomically(cached, _serialize(parser, grammar))
    return parser


def write_packaged() -> Path:
    """Write ``grammar_tables.json`` next to the grammar (run after changing grammar.lark)."""
    grammar = grammar_text()
    path = Path(__file__).with_name(PACKAGED)
    path.write_bytes(_serialize(Lark(grammar, **OPTIONS), grammar))
    return path


if __name__ == "__main__":
    print(write_packaged())
