"""The stored parse tables and their driver: the tables up to date with grammar.lark, the driver
parsing a corpus exactly as lark does (same trees, same positions, same errors), a damaged or
foreign file never trusted, the user cache written whole and reused, lark not imported to parse."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rules_dsl import grammar_cache, lalr
from rules_dsl.ast import dump

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["1 + 2 * 3", "let a = 1 in [x for x in a if x > 1]", "all(r.ok for r in rs)",
         "2d6 if 知性 >= 4 else d66", "x not in ['鋼', '堅木']", "((1))", "(a) if b else (c)",
         "f()", "f(1,)", "[]", "[1, 2,]", "-(-x) ** 2 // 3 % 4", "not not a and b or c",
         "1 <= x < 6 != y", "let a = 1, b = a + 1 in b", "xs[0].price[-1]", "'a\\'b' + \"c\"",
         "true or false or null", "d6x", "2d6", "D20 + 3d6", "a\n+\n b", "sum([x.v for x in xs if x.ok for y in x.ys])",
         "if", "1 +", "1 + * 2", "x = 1", "1.5", "f(,)", "[1 2]", "let if = 1 in if", "a.1",
         "x not y", "@", "1 ? 2", "(1", "1)", "'open", "x in", "for", "1 if 2", "a .. b", "\n\n  )"]


def _corpus() -> list[str]:
    """TEXTS, every string of the bundled rulesets and broken corpus, the fuzz corpus, and each of
    them cut short (mostly broken text: the errors must match too)."""
    texts = set(TEXTS)
    for path in [*ROOT.glob("rulesets/**/*.yaml"), *ROOT.glob("tests/broken/semantic/**/*.yaml")]:
        try:
            stack = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except Exception:  # noqa: BLE001 - the broken corpus holds broken YAML on purpose
            continue
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str) and len(value) < 300:
                texts.add(value)
    for path in ROOT.glob("fuzz/corpus/expression/*"):
        texts.add(path.read_bytes().decode("utf-8", "replace")[:300])
    for text in list(texts):
        texts.update(text[:cut] for cut in range(1, len(text), max(1, len(text) // 4)))
    return sorted(texts)


def _token(token) -> tuple:
    return (token.type, str(token), token.start_pos, token.line, token.column, token.end_line,
            token.end_column)


def _from_lark(tree) -> tuple:
    from lark import Token, Tree

    if isinstance(tree, Token):
        return _token(tree)
    assert isinstance(tree, Tree)
    meta = tree.meta
    return (tree.data, (meta.line, meta.column, meta.end_line, meta.end_column),
            tuple(_from_lark(child) for child in tree.children))


def _build(name: str, meta: lalr.Meta, children: list) -> tuple:
    return (name, (meta.line, meta.column, meta.end_line, meta.end_column),
            tuple(_token(c) if isinstance(c, lalr.Token) else c for c in children))


def _error(error: Exception) -> tuple:
    if type(error).__name__ == "UnexpectedCharacters":
        return ("characters", error.pos_in_stream, error.line, error.column,
                tuple(sorted(error.allowed)))
    if type(error).__name__ == "UnexpectedToken":
        return ("token", _token(error.token)[:5], tuple(sorted(error.expected)))
    raise error


def _outcome(parse, *args) -> tuple:
    try:
        return ("tree", parse(*args))
    except Exception as error:  # noqa: BLE001 - the kind of error is what is compared
        return ("error", _error(error))


def test_the_driver_parses_a_corpus_exactly_as_lark_does() -> None:
    from lark import Lark, Tree

    grammar = grammar_cache.grammar_text()
    reference = Lark(grammar, **grammar_cache.OPTIONS)
    tables = grammar_cache.load_tables()
    corpus = _corpus()
    assert len(corpus) > 500
    failures = []
    for text in corpus:
        theirs = _outcome(lambda t: _from_lark(reference.parse(t)), text)
        ours = _outcome(lalr.parse, tables, text, _build)
        if theirs != ours:
            failures.append((text, theirs, ours))
    assert not failures, failures[:3]
    assert sum(1 for text in corpus if isinstance(_safe(reference, text), Tree)) > 100


def _safe(parser, text: str):
    try:
        return parser.parse(text)
    except Exception:  # noqa: BLE001
        return None


def test_packaged_tables_are_for_this_grammar() -> None:
    # lark numbers states in an order that changes between runs, so the tables are compared by
    # the grammar they were made from here, and by what they parse in the tests below.
    shipped = grammar_cache.packaged()
    assert shipped is not None and shipped["format"] == grammar_cache.FORMAT
    assert shipped["grammar"] == grammar_cache.grammar_text(), \
        "grammar.lark changed: run python -m rules_dsl.grammar_cache"
    source = Path(grammar_cache.__file__).with_name(grammar_cache.PACKAGED).read_text(encoding="utf-8")
    assert source == grammar_cache.module_text(shipped)  # written by the command, not by hand


def test_packaged_tables_that_do_not_fit_the_grammar_are_not_used(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    stale = dict(grammar_cache.packaged() or {}, grammar="// another grammar")
    monkeypatch.setattr(grammar_cache, "packaged", lambda: stale)
    built: list[int] = []
    real = grammar_cache.build_tables
    monkeypatch.setattr(grammar_cache, "build_tables", lambda g: built.append(1) or real(g))
    assert lalr.parse(grammar_cache.load_tables(), TEXTS[1], _build) and built == [1]


def test_fresh_tables_parse_like_the_packaged_ones() -> None:
    grammar = grammar_cache.grammar_text()
    fresh = grammar_cache.deserialize(grammar_cache.serialize(grammar_cache.build_tables(grammar)),
                                      grammar)
    assert fresh is not None
    packaged = grammar_cache.load_tables()
    for text in TEXTS:
        assert _outcome(lalr.parse, fresh, text, _build) == \
            _outcome(lalr.parse, packaged, text, _build), text


def _damaged(blob: bytes) -> list[tuple[str, bytes]]:
    header, body = blob.split(b"\n", 1)
    data = json.loads(body) if body.strip(b"{}") else {"grammar": ""}
    data["grammar"] += "\n// another grammar"
    other = json.dumps(data).encode()
    return [("empty", b""), ("truncated", blob[: len(blob) // 2]), ("no header", body),
            ("one byte changed", header + b"\n" + body[:100] + b"X" + body[101:]),
            ("another grammar", grammar_cache.serialize(json.loads(other))),
            ("another format", json.dumps({"format": 0}).encode() + b"\n" + body),
            ("not json", b"\x80\x04garbage\n\x00\x01"),
            ("a pickle", b'{"format": 1}\n' + b"\x80\x04\x95")]


@pytest.fixture(scope="module")
def good_blob() -> bytes:
    return grammar_cache.serialize(grammar_cache.build_tables(grammar_cache.grammar_text()))


@pytest.mark.parametrize("label", [label for label, _ in _damaged(b"{}\n{}")])
def test_a_damaged_or_foreign_file_is_never_trusted(label: str, tmp_path, monkeypatch,
                                                     good_blob: bytes) -> None:
    grammar = grammar_cache.grammar_text()
    bad = dict(_damaged(good_blob))[label]
    assert grammar_cache.deserialize(bad, grammar) is None
    monkeypatch.setattr(grammar_cache, "packaged", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    name = f"grammar-{grammar_cache.grammar_digest(grammar)[:16]}-v{grammar_cache.FORMAT}.json"
    cached = tmp_path / "mprules" / name
    cached.parent.mkdir()
    cached.write_bytes(bad)
    tables = grammar_cache.load_tables()  # rebuilt, and the cache replaced by a good file
    assert lalr.parse(tables, TEXTS[1], _build)
    assert grammar_cache.deserialize(cached.read_bytes(), grammar) is not None


def test_user_cache_is_written_once_and_reused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(grammar_cache, "packaged", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar_cache.load_tables()
    files = list((tmp_path / "mprules").iterdir())
    assert [f.name.startswith("grammar-") and f.suffix == ".json" for f in files] == [True]
    built: list[int] = []
    monkeypatch.setattr(grammar_cache, "build_tables", lambda *a: built.append(1) or {})
    assert lalr.parse(grammar_cache.load_tables(), TEXTS[1], _build) and built == []


def test_a_read_only_cache_directory_still_parses(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(grammar_cache, "packaged", lambda: None)
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert lalr.parse(grammar_cache.load_tables(), TEXTS[1], _build)


def test_the_expression_parser_uses_the_stored_tables_without_lark() -> None:
    from rules_dsl.parser import parse

    assert dump(parse("[x for x in xs]")) == "(list $x (for x xs))"
    code = ("import sys; from rules_dsl import compile_expression as c; c('2d6 + x.y[0]'); "
            "print('lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "False"
