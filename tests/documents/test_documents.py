"""YAML documents: positions, limits at and past their bounds, the broken corpus, and fuzzing."""
from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from interpreter.documents.loader import KEY, Document, load_file, load_text
from interpreter.documents.resources import rulesets_dir
from interpreter.documents import limits, yaml_events
from rules_dsl.errors import EXIT_STATE, MprError

BROKEN = Path(__file__).parents[1] / "broken"
EXPECTED = yaml.safe_load((BROKEN / "expected.yaml").read_text(encoding="utf-8"))
LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])
BUNDLED = sorted(rulesets_dir().rglob("*.yaml"))


def refused(text: str | bytes, loader: type | None = None) -> MprError:
    with pytest.raises(MprError) as caught:
        load_text(text, "t.yaml", loader=loader)
    return caught.value


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.startswith("yaml/")))
def test_broken_yaml_corpus(name: str, loader: type) -> None:
    expected = EXPECTED[name]
    with pytest.raises(MprError) as caught:
        load_text((BROKEN / name).read_bytes(), name, loader=loader)
    error = caught.value
    assert (error.code, error.loc.line, error.loc.column) == (
        expected["code"], expected["line"], expected["column"])
    assert error.loc.file == name
    assert error.message("ja") != error.message("en")


def test_corpus_has_one_file_per_mistake() -> None:
    files = {p.relative_to(BROKEN).as_posix() for folder in ("yaml", "schema")
             for p in (BROKEN / folder).glob("*.yaml")}
    assert files == {k for k in EXPECTED if k.split("/")[0] in ("yaml", "schema")}
    assert len(files) >= 25


NESTED = """\
id: a.b
title: {ja: 題, en: Title}
rows:
  - when: "x > 1"
    value: 2
  - {when: 'y', value: [1, 日本語]}
text: |
  block
"""


@pytest.mark.parametrize("path, position", [
    ((), (1, 1)),
    (("id",), (1, 5)),
    (("id", KEY), (1, 1)),
    (("title",), (2, 8)),
    (("title", "en"), (2, 20)),
    (("title", "en", KEY), (2, 16)),
    (("rows",), (4, 3)),
    (("rows", 0), (4, 5)),
    (("rows", 0, "when"), (4, 11)),
    (("rows", 0, "value"), (5, 12)),
    (("rows", 1), (6, 5)),
    (("rows", 1, "value", 1), (6, 28)),
    (("rows", 1, "value", KEY), (6, 17)),
    (("text",), (7, 7)),
])
@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
def test_positions_of_nested_values(path: tuple, position: tuple, loader: type) -> None:
    (doc,) = load_text(NESTED, "n.yaml", loader=loader)
    assert doc.positions[path] == ("n.yaml", *position)


def test_location_helpers_point_at_value_key_and_nearest_parent() -> None:
    (doc,) = load_text(NESTED, "n.yaml")
    assert (doc.loc("rows", 0, "when").line, doc.loc("rows", 0, "when").column) == (4, 11)
    assert doc.loc("rows", 0, "when").path == "rows.0.when"
    assert (doc.key_loc("rows", 0, "when").line, doc.key_loc("rows", 0, "when").column) == (4, 5)
    assert (doc.loc("rows", 0, "missing").line, doc.loc("rows", 0, "missing").column) == (4, 5)


def test_multi_document_file_keeps_index_and_line_and_skips_empty_documents() -> None:
    text = "# comment\nid: a\n---\n# nothing here\n---\nid: b\n---\n"
    docs = load_text(text, "m.yaml")
    assert [(d.data, d.index, d.line) for d in docs] == [({"id": "a"}, 0, 2), ({"id": "b"}, 2, 6)]
    assert docs[1].positions[("id",)] == ("m.yaml", 6, 5)
    assert load_text("# only a comment\n") == []
    assert load_text("") == []


@pytest.mark.parametrize("text, data", [
    ("d: 2024-01-02\nt: 2001-12-14t21:59:43.10-05:00\n",
     {"d": "2024-01-02", "t": "2001-12-14t21:59:43.10-05:00"}),
    ("1: a\nno: b\nnull: c\n2.5: d\n", {"1": "a", "no": "b", "null": "c", "2.5": "d"}),
    ("a: 0x1F\nb: 0o17\nc: 1_000\nd: +3\ne: -0.5\nf: ~\ng: \nh: Yes\n",
     {"a": 31, "b": 15, "c": "1_000", "d": 3, "e": -0.5, "f": None, "g": None, "h": "Yes"}),
    ("a: !!str 12\nb: !!int '12'\nc: !!float '1'\nd: ! 12\ne: !!null ''\n",
     {"a": "12", "b": 12, "c": 1.0, "d": "12", "e": None}),
    ("a: '='\nb: =\nc: <<\n", {"a": "=", "b": "=", "c": "<<"}),
    ("a: 'x\tb'\nc: \"tab\\there\"\n", {"a": "x\tb", "c": "tab\there"}),
], ids=["dates-kept-as-text", "keys-are-text", "numbers", "core-tags", "odd-plain", "inner-tabs"])
def test_scalars(text: str, data: dict) -> None:
    for loader in LOADERS:
        assert load_text(text, loader=loader)[0].data == data


def test_yaml12_core_reading_keeps_the_text_of_what_is_not_text() -> None:
    (doc,) = load_text("a: no\nb: 1:30\nc: 010\nd: 'no'\ne: [on]\nf: ~\ng: true\n")
    assert doc.data == {"a": "no", "b": "1:30", "c": 10, "d": "no", "e": ["on"], "f": None, "g": True}
    assert doc.texts == {("c",): "010", ("f",): "~", ("g",): "true"}
    assert [(pos[1], pos[2], r.text) for pos, r in doc.readings] == [
        (1, 4, "no"), (2, 4, "1:30"), (3, 4, "010"), (5, 5, "on")]


MERGE = """\
base: &base {x: 1, y: 2}
more: &more {y: 20, z: 30}
one:
  <<: *base
  y: 5
two:
  w: 0
  <<: [*more, *base]
"""


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
def test_merge_keys_written_keys_win_then_earlier_merges(loader: type) -> None:
    (doc,) = load_text(MERGE, "m.yaml", loader=loader)
    assert doc.data["one"] == {"x": 1, "y": 5}
    assert doc.data["two"] == {"w": 0, "y": 20, "z": 30, "x": 1}
    assert doc.data == yaml.safe_load(MERGE)
    assert doc.positions[("one", "y")] == ("m.yaml", 5, 6)
    assert doc.positions[("one", "x")] == ("m.yaml", 1, 17)
    assert doc.positions[("two", "z")] == ("m.yaml", 2, 24)
    assert doc.positions[("two", "z", KEY)] == ("m.yaml", 2, 21)
    assert not any("<<" in path or "\x00merge" in path for path in doc.positions)


def test_alias_values_are_copies_located_at_the_alias() -> None:
    (doc,) = load_text("a: &x [1, {b: 2}]\nc: *x\n")
    assert doc.data["a"] == doc.data["c"] and doc.data["a"] is not doc.data["c"]
    assert doc.positions[("c",)][1:] == (2, 4)
    assert doc.positions[("c", 1, "b")][1:] == (1, 15)


@pytest.mark.parametrize("make, limit, code", [
    (lambda n: "x: &x 1\nl: [" + ", ".join(["*x"] * n) + "]\n",
     limits.MAX_YAML_ALIASES, "MPR210"),
    (lambda n: "[" * n + "]" * n, limits.MAX_YAML_DEPTH, "MPR212"),
    (lambda n: "".join("  " * i + "k:\n" for i in range(n - 1)) + "  " * (n - 1) + "k: 1\n",
     limits.MAX_YAML_DEPTH, "MPR212"),
    (lambda n: "a: 1\n" + "---\na: 1\n" * (n - 1), limits.MAX_DOCUMENTS_PER_FILE, "MPR213"),
    (lambda n: "a: 1" + "0" * (n - 1), limits.MAX_YAML_INT_DIGITS, "MPR217"),
], ids=["aliases", "flow-depth", "block-depth", "documents", "int-digits"])
@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
def test_limits_at_and_past_the_bound(make, limit: int, code: str, loader: type) -> None:
    if code == "MPR217":
        make = (lambda n: "a: " + "1" * n)  # noqa: E731 - bits stay below the limit at 77 digits
        limit = min(limit, 77)
        load_text(make(limit), loader=loader)
        assert refused("a: " + "1" * (limits.MAX_YAML_INT_DIGITS + 1), loader).code == code
        return
    load_text(make(limit), loader=loader)
    assert refused(make(limit + 1), loader).code == code


def _expanding(padding: int) -> str:
    """(98 + 1) copies of a 1,000-value list, plus a list of ``padding`` values, plus 3."""
    return ("a: &a [" + ", ".join(["1"] * 999) + "]\nb: [" + ", ".join(["*a"] * 98) + "]\n"
            + "c: [" + ", ".join(["0"] * padding) + "]\n")


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
def test_expanded_values_at_and_past_the_node_limit(loader: type, monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    """At the bound itself with the C loader (a million values: about a second); the pure-Python
    loader, ten times slower, at a bound set to 200,000 for the test."""
    if loader is yaml.SafeLoader:
        monkeypatch.setattr(yaml_events, "MAX_YAML_NODES", 200_000)
    padding = yaml_events.MAX_YAML_NODES - 99 * 1000 - 3
    (doc,) = load_text(_expanding(padding), loader=loader)
    assert len(doc.data["b"]) == 98 and len(doc.data["c"]) == padding
    assert doc.nodes == yaml_events.MAX_YAML_NODES
    error = refused(_expanding(padding + 1), loader)
    assert (error.code, error.loc.line) == ("MPR211", 3)


def _copying(lists: int, more: bool) -> str:
    """Aliases that copy ``lists`` times a list of 2,000 values (itself and 1,999 items), and
    with ``more`` one scalar more."""
    return ("a: &a [" + ", ".join(["1"] * 1999) + "]\ns: &s 2\nb: ["
            + ", ".join(["*a"] * lists + ["*s"] * more) + "]\n")


def test_values_copied_by_aliases_at_and_past_their_limit() -> None:
    """MAX_YAML_ALIAS_NODES bounds what aliases copy (each copy carries its positions), so a file
    of a few bytes cannot build much: at the bound it loads, one value more is MPR972 at the
    alias that passes it."""
    lists = limits.MAX_YAML_ALIAS_NODES // 2000
    (doc,) = load_text(_copying(lists, False))
    assert sum(len(item) + 1 for item in doc.data["b"]) == limits.MAX_YAML_ALIAS_NODES
    error = refused(_copying(lists, True))
    assert (error.code, error.loc.line, error.loc.column) == ("MPR972", 3, 5 + 4 * lists)


def _nested(depth: int) -> str:
    """A scalar inside ``depth`` mappings."""
    return "{a: " * depth + "1" + "}" * depth + "\n"


@pytest.mark.parametrize("depth, cost", [(1, 2), (15, 16), (16, 18), (17, 20), (40, 41 + 16 + 18)])
def test_a_value_costs_more_the_deeper_it_is(depth: int, cost: int) -> None:
    """``cost`` counts a value once more for every 16 levels it is nested (its path, kept with its
    position, grows with its depth): the budget over many files bounds memory whatever the shape.
    The root mapping is at depth 0; its value at depth 1, and so on."""
    (doc,) = load_text(_nested(depth))
    assert doc.nodes == depth + 1 and doc.cost == cost


@pytest.mark.parametrize("text", [_nested(40), "a: [" + ", ".join(["1"] * 50) + "]\n"])
def test_a_budget_over_many_files_at_and_past_its_bound(text: str) -> None:
    """``budget`` (left, whole): at the file's cost it loads; one less and it is MPR970 with the
    whole in the message, at the value that passes it."""
    (doc,) = load_text(text)
    assert load_text(text, budget=(doc.cost, 10 ** 6))[0].data == doc.data
    error = refused_with(text, budget=(doc.cost - 1, 10 ** 6))
    assert error.code == "MPR970" and "1000000" in str(error) and error.loc.line == 1


def refused_with(text: str, **options: object) -> MprError:
    with pytest.raises(MprError) as caught:
        load_text(text, "t.yaml", **options)  # type: ignore[arg-type]
    return caught.value


def test_alias_bomb_fails_with_little_memory() -> None:
    bomb = (BROKEN / "yaml" / "alias_bomb.yaml").read_bytes()
    assert len(bomb) < 1000
    tracemalloc.start()
    try:
        error = refused(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error.code == "MPR972"
    assert peak < 64 * 1024 * 1024


def test_nesting_far_past_the_recursion_limit_is_a_located_error() -> None:
    for loader in LOADERS:
        error = refused("a:\n" + "  - " * 5000 + "x\n", loader)
        assert (error.code, error.loc.line) == ("MPR212", 2)
        assert refused("[" * 200_000, loader).code == "MPR212"


def test_file_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("a: 1\n" + "#" * 95 + "\n", encoding="utf-8")
    assert load_file(path, max_bytes=101)[0].data == {"a": 1}
    with pytest.raises(MprError) as caught:
        load_file(path, max_bytes=100)
    assert caught.value.code == "MPR201"
    assert caught.value.loc.file == str(path)


def test_unreadable_file_is_a_state_error(tmp_path: Path) -> None:
    for path, code in ((tmp_path / "missing.yaml", "MPR200"), (tmp_path, "MPR220")):
        with pytest.raises(MprError) as caught:
            load_file(path)
        assert caught.value.code == code
        assert caught.value.exit_code == EXIT_STATE


def test_bom_and_crlf_are_fine() -> None:
    (doc,) = load_text(b"\xef\xbb\xbfid: a\r\ntitle: b\r\n", "b.yaml")
    assert doc.data == {"id": "a", "title": "b"}
    assert doc.positions[("title",)] == ("b.yaml", 2, 8)
    assert load_text("\ufeffid: a\n")[0].data == {"id": "a"}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_files_load_like_pyyaml_and_both_loaders_agree(path: Path) -> None:
    data = path.read_bytes()
    loaded = [load_text(data, str(path), loader=loader) for loader in LOADERS]
    assert all(docs == loaded[0] for docs in loaded)
    plain = [d for d in yaml.safe_load_all(data) if d is not None]
    assert [d.data for d in loaded[0]] == plain
    for doc in loaded[0]:
        assert isinstance(doc, Document) and doc.positions[()][0] == str(path)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_loaders_agree_on_the_corpus(name: str) -> None:
    outcomes = []
    for loader in LOADERS:
        try:
            outcomes.append([(d.data, d.positions) for d in
                             load_text((BROKEN / name).read_bytes(), name, loader=loader)])
        except MprError as error:
            outcomes.append((error.code, error.loc.line, error.loc.column))
    assert all(outcome == outcomes[0] for outcome in outcomes)


def _documents_or_located_error(data: bytes | str) -> None:
    try:
        docs = load_text(data, "fuzz.yaml")
    except MprError as error:
        assert error.code.startswith("MPR2")
        assert error.loc.file == "fuzz.yaml" and error.loc.line and error.loc.column
        return
    for doc in docs:
        assert all(pos[1] >= 1 and pos[2] >= 1 for pos in doc.positions.values())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_documents_or_a_located_error(data: bytes) -> None:
    _documents_or_located_error(data)


YAMLISH = st.text(alphabet=list("ab1:-[]{},&*!#|>'\"?<=~. \t\n\x85\u3042\u200b\x00"),
                  max_size=120)


@settings(max_examples=300, deadline=None)
@given(YAMLISH)
def test_yaml_like_text_gives_documents_or_a_located_error(text: str) -> None:
    _documents_or_located_error(text)


def test_shared_parses_are_kept_within_their_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``shared.read`` keeps a file's parse for its later readers while the kept parses cost at
    most MAX_SHARED_COST in all: at the bound both files stay kept; one value less and keeping
    the second empties the memo first (not an error: only a later read parses again)."""
    from interpreter.documents import shared

    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text("a: [1, 2, 3]\n", encoding="utf-8")
    two.write_text("b: {c: 1, d: [2]}\n", encoding="utf-8")
    costs = [load_file(p)[0].cost for p in (one, two)]

    def kept() -> list[str]:
        return sorted(Path(name).name for (name, _), (docs, _) in shared._read.items() if docs)

    for bound, expected in ((sum(costs), ["one.yaml", "two.yaml"]), (sum(costs) - 1, ["two.yaml"])):
        monkeypatch.setattr(shared, "MAX_SHARED_COST", bound)
        shared.clear()
        for path in (one, one, two, two):  # the second reader of each has the parse kept
            assert shared.read(path)[0].data == load_file(path)[0].data
        assert kept() == expected
    shared.clear()
