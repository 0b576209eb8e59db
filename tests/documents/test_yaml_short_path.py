"""The short path of ``Builder.run`` against the long one (every event through ``Builder.feed``,
``load_text(stepwise=True)``): the same documents (data, positions and their order, written
texts, readings) or the same error (code, file, line, column, message), on hand-written tricky
YAML, the broken corpus, every bundled file, generated tables and generated YAML-like text."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from interpreter.documents.loader import load_text
from interpreter.documents.resources import rulesets_dir
from rules_dsl.errors import MprError

BROKEN = Path(__file__).parents[1] / "broken" / "yaml"
LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])

TRICKY = {
    "anchors": "a: &x [1, {b: 2}]\nc: *x\nd: &s text\ne: *s\nf: [*x, *s]\n",
    "anchor-redefined": "a: &x 1\nb: *x\nc: &x [2]\nd: *x\n",
    "anchored-mapping-in-list": "- &m {a: 1, b: [2, 3]}\n- *m\n- {c: *m}\n",
    "merge": "base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\nm:\n  <<: [*b, *o]\n  x: 9\nn: {<<: *b}\n",
    "merge-written-after": "b: &b {x: 1}\nm:\n  y: 2\n  <<: *b\n  z: 3\n",
    "quoted-merge-key": "m: {'<<': 1, a: 2}\n",
    "multi-line": "a: |\n  one\n  two\nb: >\n  folded\n  text\nc: plain\n  continued\n"
                  "d: 'single\n  quoted'\ne: \"double\\n\\tescaped\"\n",
    "tags": "a: !!str 1\nb: !!int '2'\nc: !!float 3\nd: ! 4\ne: !!null ''\nf: !!bool true\n"
            "g: !!map {x: 1}\nh: !!seq [1]\ni: !!str\n",
    "numbers": "a: 014\nb: 0o14\nc: 0x1F\nd: 1e3\ne: -.5\nf: +1\ng: 1_000\nh: 1:30\ni: .NaN\n",
    "yaml11-words": "a: yes\nb: no\nc: on\nd: off\ne: y\nf: ~\ng: Null\nh: TRUE\ni: [yes, no]\n",
    "keys": "1: a\nno: b\n~: c\n'q': d\n\"dq\": e\n? complex\n: f\ntrue: g\n",
    "comments": "# head\na: 1 # after\n# between\nb:\n  # inside\n  - 2 # item\n",
    "bom": "\ufeffa: 1\nb: [x, y]\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n",
    "documents": "a: 1\n---\n---\n# nothing\n---\n- x\n- {y: 2}\n...\n---\nnull\n",
    "empty-values": "a:\nb: []\nc: {}\nd: ''\ne: [~, null, '']\n",
    "nested": "a:\n  b:\n    - c: [1, [2, [3, {d: e}]]]\n      f: {g: {h: i}}\n",
    "flow-in-block": "rows:\n  - {id: a, when: n > 1, value: 1}\n  - {id: b, when: 'n < 2', value: 2.5}\n",
    "fullwidth-colon-text": "title: '表：裏'\nb: 表：裏\nc: [a：b]\n",
    "japanese": "title: {ja: 大きな表, en: A big table}\n説明: 日本語のキー\n",
    "duplicate": "a: 1\nb: 2\na: 3\n",
    "duplicate-nested": "x:\n  - {a: 1, a: 2}\n",
    "duplicate-merge": "b: &b {x: 1}\nm: {<<: *b, <<: *b}\n",
    "tab-indent": "a:\n\tb: 1\n",
    "tab-in-value": "a: 'x\ty'\nb: [1,\t2]\n",
    "syntax": "a: [1, 2\nb: 3\n",
    "colon-in-plain": "a: b: c\n",
    "unknown-anchor": "a: *nope\n",
    "recursive": "a: &r [1, *r]\n",
    "bad-key": "{[1]: a}\n",
    "alias-key": "a: &k x\n*k : y\n",
    "bad-tag": "a: !!binary aGk=\n",
    "bad-bool": "a: !!bool yes\n",
    "big-int": "a: " + "9" * 101 + "\n",
    "nan": "a: .nan\n",
    "merge-scalar": "m: {<<: 1}\n",
    "version": "%YAML 1.1\n---\na: 1\n",
    "fullwidth-indent": "a:\n\u3000b: 1\n",
    "fullwidth-colon-key": "a:\n  allowance：3\n",
    "control": "a: \x07\n",
    "late-error-after-duplicate": "a: 1\na: 2\nb: [\n",
    "deep-values": "a: " + "{b: " * 40 + "[1, 2, {c: 3}]" + "}" * 40 + "\nd: [" + "[" * 20 + "x" + "]" * 20 + "]\n",
}


def outcome(text: str | bytes, stepwise: bool, loader: type | None = None) -> object:
    """What loading ``text`` gives: every document's data, positions (in order), texts and
    readings, or the error's code, place and message."""
    try:
        docs = load_text(text, "t.yaml", loader=loader, stepwise=stepwise)
    except MprError as error:
        return ("error", error.code, error.loc, str(error))
    return [(doc.index, doc.line, repr(doc.data), list(doc.positions.items()),
             list(doc.texts.items()), doc.readings, doc.nodes, doc.cost) for doc in docs]


def same_either_way(text: str | bytes, loader: type | None = None) -> None:
    assert outcome(text, False, loader) == outcome(text, True, loader)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_yaml(name: str, loader: type) -> None:
    same_either_way(TRICKY[name], loader)


def test_the_cases_reach_both_documents_and_errors() -> None:
    """The table covers loaded documents and refusals (so the comparison is not of two errors
    only), and the short path takes the common events itself."""
    outcomes = [outcome(text, False) for text in TRICKY.values()]
    assert sum(1 for o in outcomes if isinstance(o, tuple)) >= 15
    assert sum(1 for o in outcomes if isinstance(o, list) and o) >= 15


@pytest.mark.parametrize("path", sorted(BROKEN.glob("*.yaml")), ids=lambda p: p.name)
def test_broken_corpus(path: Path) -> None:
    same_either_way(path.read_bytes())


@pytest.mark.parametrize("path", sorted(rulesets_dir().rglob("*.yaml")),
                         ids=lambda p: str(p.relative_to(rulesets_dir())))
def test_bundled_files(path: Path) -> None:
    same_either_way(path.read_bytes())


def _table(rows: int) -> str:
    """A table as the benchmarks and GMs write it: flow rows, block rows, a nested text, ids,
    repeated conditions, a few values YAML 1.1 reads differently."""
    lines = ["id: big.table", "kind: RollTable", "rows:"]
    for n in range(rows):
        if n % 3:
            lines.append(f"  - {{roll: {n}, id: r{n}, when: n > {n % 7}, text: {{ja: 出来事{n}, en: on}}}}")
        else:
            lines += [f"  - roll: {n}", f"    id: r{n}", "    value: 1:30" if n % 2 else "    value: 010",
                      "    tags: [a, 'b', \"c\", yes]"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rows", [1, 10, 500])
def test_generated_tables(rows: int) -> None:
    same_either_way(_table(rows))


PIECES = ["a", "b", ": ", "- ", "\n", "  ", "&x ", "*x", "<<: ", "[", "]", "{", "}", ", ", "'", '"',
          "1", "0x1", "yes", "~", "!!str ", "!!int ", "#", "---\n", "|\n", "? ", "表", "：", "\u3000",
          "\t", "1:30", ".inf", "a: &y {k: 1}\n", "b: *y\n", "c: {<<: *y, k: 2}\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_generated_yaml_like_text(pieces: list[str]) -> None:
    same_either_way("".join(pieces))


@pytest.mark.parametrize("text", ["0", "00", "7", "014", "0128", "1" * 77, "1" * 78, "9" * 100,
                                  "9" * 101, str(2 ** 256 - 1), str(2 ** 256), "١٢"])
def test_decimal_digits_read_as_the_core_schema_reads_them(text: str) -> None:
    """A plain scalar of decimal digits alone is read without the resolver (``Builder._scalar``):
    the value, written text and reading the core schema's path gives, or its error."""
    from interpreter.documents import yaml_readings

    try:
        (doc,) = load_text(f"a: {text}\n", "t.yaml")
    except MprError as error:
        assert error.code == "MPR217" and (len(text) > 100 or int(text).bit_length() > 256)
        return
    if not text.isascii():
        assert doc.data == {"a": text}
        return
    assert yaml_readings.core_tag(text) == "tag:yaml.org,2002:int"
    assert doc.data == {"a": yaml_readings.core_int(text)} and doc.texts == {("a",): text}
    expected = yaml_readings.compare(text, doc.data["a"])
    assert [reading for _, reading in doc.readings] == ([expected] if expected else [])
