"""What the warm path of ``run`` reads differently from a cold one, and that it gives the same:
a ruleset read back from the cache keeps its positions and texts apart, read on first use
(``ruleset.cache._Unread``), and equal to those read from the files, in their order; a result is
written as JSON without loading json (``rules_dsl.plain.json_indented``), as json writes it; a
template's literal text is taken between braces at once, placed as before (#26)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules_dsl.errors import Location, MprError
from rules_dsl.plain import json_indented
from rules_dsl.template import compile_template

from interpreter.checks.loading import load_ruleset
from interpreter.documents.resources import bundled_ruleset
from interpreter.ruleset import cache as ruleset_cache

ROOT = Path(__file__).resolve().parents[2]
RULESETS = [bundled_ruleset(), *sorted(p.parent for p in (ROOT / "rulesets" / "examples").glob("*/ruleset.yaml"))]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(ruleset_cache.DIR_ENV, str(folder))
    monkeypatch.delenv(ruleset_cache.DISABLE_ENV, raising=False)
    return folder


def _warm(path: Path):
    """The ruleset at ``path`` as a warm ``run`` reads it (its entry written by a first load)."""
    load_ruleset(path)
    return ruleset_cache.load_kept(path, {}, None, lambda: pytest.fail("the entry was not used"))


def _paths(positions) -> list[tuple]:
    """Every path of ``positions``, the parents of each, and paths no document has."""
    found = set()
    for path in positions:
        found.update(path[:n] for n in range(len(path) + 1))
        found.add((*path, "no such field"))
    return sorted(found, key=repr)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_a_kept_ruleset_places_everything_as_its_files_do(path, cache) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ruleset_cache.DISABLE_ENV, "1")
        fresh = load_ruleset(path)
    warm = _warm(path)
    for rule_id, rule in fresh.rules.items():
        kept = warm.rule(rule_id)
        assert isinstance(kept.positions, ruleset_cache._Unread)
        for where in _paths(rule.positions):  # each looked up alone, as loc() does
            assert kept.loc(*where) == rule.loc(*where), (rule_id, where)
        assert list(kept.positions.items()) == list(rule.positions.items())  # in their order
        assert list(kept.texts.items()) == list(dict(rule.texts).items())
    assert dict(warm.parameter_positions) == fresh.parameter_positions
    assert set(warm.bases) == set(fresh.bases)
    for key, base in fresh.bases.items():
        assert (warm.bases[key].doc, dict(warm.bases[key].positions)) == (base.doc, dict(base.positions))


def test_a_warm_run_reads_only_the_groups_of_the_paths_it_asks_for(cache) -> None:
    warm = _warm(bundled_ruleset())
    rule = warm.rule("procurement.rarity")
    assert rule.loc("rows", 0, "when").line is not None
    positions = rule.positions
    assert positions._plain is None  # not made whole
    read = [prefix for prefix, group in positions._groups.items() if type(group) is not bytes]
    assert read == [("rows", 0)]
    assert isinstance(warm.parameter_positions, ruleset_cache._Unread) and warm.parameter_positions._plain is None
    assert warm.bases._plain is None


@pytest.mark.parametrize("rows", [3, ruleset_cache._MAX_GROUPS // 3, ruleset_cache._MAX_GROUPS + 1, 3000])
def test_a_table_of_many_rows_is_kept_in_fewer_groups(rows) -> None:
    # the positions of a table past _MAX_GROUPS groups of two parts are kept by their first part
    # (a marshal call and an index entry per group): the same paths, places and order either way
    positions = {("id",): ("f", 1, 1), ("id", "\x00key"): ("f", 1, 1)}
    for i in range(rows):
        for field in ("roll", "id"):
            positions[("rows", i, field)] = ("f", 10 + i, 5 if field == "roll" else 14)
    n, groups = ruleset_cache._split(positions)
    assert n == (2 if len({path[:2] for path in positions}) <= ruleset_cache._MAX_GROUPS else 1)
    assert len(groups) <= ruleset_cache._MAX_GROUPS
    kept = ruleset_cache._Unread(groups, n)
    for path, place in positions.items():
        assert kept.get(path) == place and path in kept
    assert kept.get(("rows", rows, "roll")) is None and ("rows", -1) not in kept
    assert list(kept.items()) == list(positions.items())


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 10 ** 40, 0.5, -0.0, 1e300, 2.5e-07, "", "鋼", "a\"b\\c", "\n\t\x00\x1f",
    "\x7f\u2028\u3000", [], {}, [[]], {"": {}}, [1, [2, [3, []]]], {"a": [1, {"b": None}], "キー": "値"},
])
def test_json_is_written_as_json_writes_it(value) -> None:
    assert json_indented(value) == json.dumps(value, ensure_ascii=False, indent=2)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [float("-inf")], {1: 2}, {"a": (1, 2)},
                                   {"a": {3}}, [[[[0]]]]])
def test_json_it_is_not_sure_of_is_left_to_json(value, monkeypatch) -> None:
    from rules_dsl import plain

    monkeypatch.setattr(plain, "_MAX_JSON_DEPTH", 3)
    assert json_indented(value) is None


def test_json_of_generated_values_is_as_json_writes_it() -> None:
    rnd = random.Random(26)
    atoms = [None, True, False, 0, 3, -1.25, "x", "鋼 材", '"', "\\", "\n", "\x01"]

    def value(depth: int):
        pick = rnd.random()
        if depth > 3 or pick < 0.45:
            return rnd.choice(atoms)
        if pick < 0.7:
            return [value(depth + 1) for _ in range(rnd.randint(0, 3))]
        return {rnd.choice(["k", "名", "", "\"q\""]) + str(i): value(depth + 1) for i in range(rnd.randint(0, 3))}

    for _ in range(2000):
        data = value(0)
        assert json_indented(data) == json.dumps(data, ensure_ascii=False, indent=2)


ORIGIN = Location("r.yaml", 10, 5)


@pytest.mark.parametrize("text, parts", [
    ("plain", ["plain"]),
    ("a{params.x}b", ["a", ("params.x", 10, 7), "b"]),
    ("行\n二{params.x}", ["行\n二", ("params.x", 11, 3)]),
    ("{{x}} {params.y}", ["{x} ", ("params.y", 10, 12)]),
    ("a\n\nbc{{\n}}{params.z}", ["a\n\nbc{\n}", ("params.z", 13, 4)]),
])
def test_a_template_places_its_placeholders_where_they_are_written(text, parts) -> None:
    template = compile_template(text, ORIGIN)
    shown = [part if isinstance(part, str) else (part.text, part.origin.line, part.origin.column)
             for part in template.parts]
    assert shown == parts


@pytest.mark.parametrize("text, line, column", [
    ("ab}", 10, 7), ("a\nb }c", 11, 3), ("x{params.y", 10, 6), ("{ }", 10, 5), ("a\n\n  {", 12, 3),
])
def test_a_bad_template_is_refused_at_its_place(text, line, column) -> None:
    with pytest.raises(MprError) as raised:
        compile_template(text, ORIGIN)
    assert (raised.value.loc.line, raised.value.loc.column) == (line, column)
