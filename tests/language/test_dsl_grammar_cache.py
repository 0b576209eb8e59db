"""The stored LALR tables: used when they fit, ignored (and rebuilt) when damaged or foreign, the
packaged file up to date with grammar.lark, the user cache written whole or not at all."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules_dsl import grammar_cache
from rules_dsl.ast import dump

TEXTS = ["1 + 2 * 3", "let a = 1 in [x for x in a if x > 1]", "all(r.ok for r in rs)",
         "2d6 if 知性 >= 4 else d66", "x not in ['鋼', '堅木']"]


def _trees(parser) -> list[str]:
    return [parser.parse(text).pretty() for text in TEXTS]


def test_packaged_tables_match_the_grammar() -> None:
    packaged = Path(grammar_cache.__file__).with_name(grammar_cache.PACKAGED)
    header = json.loads(packaged.read_bytes().split(b"\n", 1)[0])
    assert header["grammar"] == grammar_cache.grammar_digest(grammar_cache.grammar_text()), \
        "grammar.lark changed: run python -m rules_dsl.grammar_cache"


def test_stored_tables_parse_like_built_ones() -> None:
    from lark import Lark

    grammar = grammar_cache.grammar_text()
    built = Lark(grammar, **grammar_cache.OPTIONS)
    stored = grammar_cache._deserialize(grammar_cache._serialize(built, grammar), grammar)
    assert stored is not None and _trees(stored) == _trees(built)


def _damaged(blob: bytes) -> list[tuple[str, bytes]]:
    header, body = blob.split(b"\n", 1)
    other = json.loads(header)
    other["key"] = "0" * 64
    return [("empty", b""), ("truncated", blob[: len(blob) // 2]), ("no header", body),
            ("one byte changed", header + b"\n" + body[:100] + b"X" + body[101:]),
            ("another grammar", json.dumps(other).encode() + b"\n" + body),
            ("not json", b"\x80\x04garbage\n\x00\x01"),
            ("a pickle", b'{"key": 1}\n' + b"\x80\x04\x95")]


@pytest.mark.parametrize("label", [label for label, _ in _damaged(b"{}\n{}")])
def test_a_damaged_or_foreign_file_is_never_trusted(label: str, tmp_path, monkeypatch) -> None:
    from lark import Lark

    grammar = grammar_cache.grammar_text()
    blob = grammar_cache._serialize(Lark(grammar, **grammar_cache.OPTIONS), grammar)
    bad = dict(_damaged(blob))[label]
    assert grammar_cache._deserialize(bad, grammar) is None
    monkeypatch.setattr(grammar_cache, "PACKAGED", "no-such-file.json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached = tmp_path / "mprules" / f"grammar-{grammar_cache._key(grammar)[:16]}.json"
    cached.parent.mkdir()
    cached.write_bytes(bad)
    parser = grammar_cache.load_parser()  # rebuilt, and the cache replaced by a good file
    assert dump_tree(parser) and grammar_cache._deserialize(cached.read_bytes(), grammar) is not None


def dump_tree(parser) -> str:
    return parser.parse(TEXTS[1]).pretty()


def test_user_cache_is_written_once_and_reused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(grammar_cache, "PACKAGED", "no-such-file.json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar_cache.load_parser()
    files = list((tmp_path / "mprules").iterdir())
    assert [f.name.startswith("grammar-") and f.suffix == ".json" for f in files] == [True]
    built: list[int] = []
    monkeypatch.setattr(grammar_cache, "_serialize", lambda *a: built.append(1) or b"")
    assert dump_tree(grammar_cache.load_parser()) and built == []


def test_a_read_only_cache_directory_still_parses(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(grammar_cache, "PACKAGED", "no-such-file.json")
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert dump_tree(grammar_cache.load_parser())


def test_the_expression_parser_uses_the_stored_tables() -> None:
    from rules_dsl.parser import parse

    assert dump(parse("[x for x in xs]")) == "(list $x (for x xs))"
