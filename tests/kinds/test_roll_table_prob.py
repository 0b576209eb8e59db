"""``prob`` of a roll table against a reference computed the simple way: every combination of the
dice enumerated, each roll's row found by reading the rows in order, probabilities as Fractions
added per event, the events ordered by probability (ties as first rolled), and the lines printed
one by one as the text table has always been laid out. For a table of cases (spans, gaps with a
default, overlapping rows, weights, many rows, repeated labels, a default beside a row named
``default``, a range wider than the dice, a gap without a default, rolls that are not whole),
the distribution (its rows, the columns it keeps, its JSON) and the printed text are the
reference's."""
from __future__ import annotations

import io
import itertools
import re
import sys
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.checks.loading import load_ruleset
from interpreter.cli._expr import print_columns, print_rows, row_label, row_labels
from interpreter.engine import runner as engine
from interpreter.reports.bars import bar
from interpreter.ruleset.model import Rule
from rules_dsl.plain import jsonable
from rules_dsl.words import localized
from ruleset_support import manifest, write

ROOT = Path(__file__).resolve().parents[2]


def _rows_of(spans, ids=None, texts=None):
    """Rows of the spans (a number or [lo, hi]), with the ids and texts given by index."""
    out = []
    for i, roll in enumerate(spans):
        row = {"roll": roll}
        if ids and ids[i] is not None:
            row["id"] = ids[i]
        if texts and texts[i] is not None:
            row["text"] = texts[i]
        out.append(row)
    return out


MANY = [n for n in range(1, 1001) if n % 13]  # 1,000 rolls, a gap every 13th: the default
SAME = {"ja": "同じ出来事", "en": "The same event"}

# (name, roll expression, faces of the dice it rolls, the roll of those dice, rows, extra fields)
CASES = [
    ("spans", "1d6", [6], lambda a: a,
     _rows_of([[1, 2], [3, 4], 5, 6], ["clear", "cloudy", "rain", "storm"],
              [{"ja": "晴れ", "en": "Clear"}, None, {"ja": "雨"}, None]), {}),
    ("gaps with a default", "1d10 + 1d4", [10, 4], lambda a, b: a + b,
     _rows_of([2, [5, 6], 9, [12, 13]], ["two", "five", None, "two"],
              [{"en": "Two only"}, None, {"ja": "九", "en": "Nine"}, None]),
     {"default": {"id": "nothing", "text": {"ja": "何もなし", "en": "Nothing"}}}),
    ("overlapping rows: the first listed wins", "2d4", [4, 4], lambda a, b: a + b,
     _rows_of([[2, 5], [4, 8], 5, [7, 7]], ["low", "high", "five", "seven"]), {}),
    ("weights, an event over two spans", "2d6", [6, 6], lambda a, b: a + b,
     _rows_of([[2, 4], [5, 9], 10, [11, 12]], ["low", "mid", "high", "low"],
              [{"ja": "低い", "en": "Low"}, {"ja": "真ん中"}, None, {"ja": "低い", "en": "Low"}]), {}),
    ("many rows, ids repeated, a default", "(1d10 - 1) * 100 + 1d100", [10, 100],
     lambda a, b: (a - 1) * 100 + b,
     _rows_of(MANY, [None if n % 7 == 0 else f"r{n % 11}" for n in MANY],
              [SAME if n % 5 == 0 else None for n in MANY]),
     {"default": {"id": "none", "text": {"en": "None"}}}),
    ("labels repeated over rows of one id", "1d8", [8], lambda a: a,
     _rows_of([1, 2, 3, 4, 5, [6, 8]], ["a", "b", "a", "c", "a", "b"],
              [SAME, SAME, SAME, {"ja": "別"}, None, SAME]), {}),
    ("a default without an id beside a row named default", "3d6 - 2", [6, 6, 6], lambda a, b, c: a + b + c - 2,
     _rows_of([1, [10, 11], 16], ["a", "b", "default"], [None, {"ja": "十", "en": "Ten"}, None]),
     {"default": {"value": 0}, "range": [0, 20]}),
    ("a range wider than the dice", "1d6", [6], lambda a: a,
     _rows_of([[0, 2], [3, 9]], ["low", "high"]), {"range": [0, 9], "default": {"id": "other"}}),
    ("a gap without a default", "1d6", [6], lambda a: a,
     _rows_of([1, [4, 5]], ["one", None]), {}),
    ("rows without an id over a span", "1d4 + 1d4", [4, 4], lambda a, b: a + b,
     _rows_of([[2, 5], [6, 8]], [None, None], [None, {"en": "High"}]), {}),
    ("rolls that are not whole numbers", "1d6 / 2", [6], lambda a: a // 2 if a % 2 == 0 else Fraction(a, 2),
     _rows_of([[0, 1], [2, 3]], ["low", "high"]), {}),
]


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory: pytest.TempPathFactory):
    root = write(tmp_path_factory.mktemp("tables"), {"ruleset.yaml": manifest("t")})
    return load_ruleset(root)


def _rule(expression: str, rows: list, extra: dict) -> Rule:
    doc = {"id": "t.table", "kind": "RollTable", "source": "test", "title": {"ja": "表", "en": "Table"},
           "params": {"roll": expression}, "rows": rows, **extra}
    return Rule("t.table", "RollTable", doc, params=dict(doc["params"]))


def _label(row, lang):
    if not row:
        return None
    text = row.get("text")
    if isinstance(text, dict):
        return localized(text, lang) or row.get("id")
    return row.get("id") if text is None else str(text)


def _lo_hi(roll) -> tuple[int, int]:
    return (roll[0], roll[1]) if isinstance(roll, list) else (roll, roll)


def _reference(faces: list[int], roll, rows: list, extra: dict, lang: str):
    """(by roll, by event, mean): (value, probability, label) triples, as the simple way gives."""
    combos = list(itertools.product(*(range(1, f + 1) for f in faces)))
    chances: dict = {}
    for dice in combos:
        value = roll(*dice)
        chances[value] = chances.get(value, 0) + Fraction(1, len(combos))
    default = extra.get("default")
    by_roll, events, event_labels = [], {}, {}
    for value in sorted(chances):
        row = next((r for r in rows if _lo_hi(r["roll"])[0] <= int(value) <= _lo_hi(r["roll"])[1]), default)
        if row is None:
            key = str(value)
        elif row is default:
            key = str(row.get("id") or "default")
        else:
            key = str(row.get("id") or value)
        label = _label(row, lang)
        by_roll.append((value, chances[value], label))
        if key not in events:
            events[key], event_labels[key] = 0, label
        events[key] += chances[value]
    if default is not None and "default" in events and event_labels["default"] is None:
        event_labels["default"] = "表に載っていない出目（default）" if lang == "ja" else "a roll no row lists (default)"
    ordered = sorted(events, key=lambda k: -events[k])
    mean = sum(v * p for v, p, _ in by_roll)
    return by_roll, [(k, events[k], event_labels[k]) for k in ordered], mean


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _printed(rows: list[tuple[str, Fraction]], header: tuple[str, str]) -> str:
    """The text table, line by line: label, fraction, percent, a bar scaled to the likeliest row."""
    label_width = max([_width(header[0])] + [_width(label) for label, _ in rows])
    texts = [str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}" for _, p in rows]
    fraction_width = max([_width(header[1])] + [len(t) for t in texts])
    top = max((float(p) for _, p in rows), default=1.0) or 1.0
    right = all(re.fullmatch(r"-?\d+(/\d+)?", label) for label, _ in rows)

    def pad(text: str, width: int) -> str:
        fill = " " * (width - _width(text))
        return fill + text if right else text + fill

    lines = [f"{pad(header[0], label_width)}  {header[1]}{' ' * (fraction_width - _width(header[1]))}        %"]
    for (label, p), text in zip(rows, texts):
        f = p.numerator / p.denominator
        lines.append(f"{pad(label, label_width)}  {text:<{fraction_width}}  {f * 100:6.2f}%  {bar(f / top, 30)}")
    return "\n".join(lines) + "\n"


def _print(fn, *args) -> str:
    real, sys.stdout = sys.stdout, io.StringIO()
    try:
        fn(*args)
        return sys.stdout.getvalue()
    finally:
        sys.stdout = real


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("name,expression,faces,roll,rows,extra", CASES, ids=[c[0] for c in CASES])
def test_distribution_and_printing_are_the_simple_way(ruleset, name, expression, faces, roll, rows, extra,
                                                      lang) -> None:
    ruleset.rules["t.table"] = _rule(expression, rows, extra)
    by_roll, by_event, mean = _reference(faces, roll, rows, extra, lang)
    tables = engine.distribution(ruleset, "t.table", {}, lang=lang)
    assert [t.title for t in tables] == [f"{'表' if lang == 'ja' else 'Table'}: {expression}",
                                         f"{'表' if lang == 'ja' else 'Table'}: "
                                         f"{'結果ごと' if lang == 'ja' else 'by result'}"]
    assert tables[0].mean == mean and tables[1].mean is None
    header = ("outcome", "probability")
    for table, expected in zip(tables, (by_roll, by_event)):
        reference = [(row_label(v, label), p) for v, p, label in expected]
        # the columns kept, printed and as JSON, before any row is made
        values, labels, ratios = table.outcomes()
        assert (values, labels) == ([v for v, _, _ in expected], [label for _, _, label in expected])
        assert ratios == [(p.numerator, p.denominator) for _, p, _ in expected]
        assert row_labels(values, labels) == [label for label, _ in reference]
        assert _print(print_columns, row_labels(values, labels), ratios, header) == _printed(reference, header)
        assert table.to_json()["rows"] == [
            {"value": jsonable(v),
             "p": str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}",
             "percent": round(p.numerator / p.denominator * 100, 2), **({} if label is None else {"label": label})}
            for v, p, label in expected]
        # the rows, made on use, are the same outcomes
        assert [(r.value, r.p, r.label) for r in table.rows] == expected
        assert _print(print_rows, [(row_label(r.value, r.label), r.p) for r in table.rows], header) \
            == _printed(reference, header)


@pytest.mark.parametrize("argv", [
    ["prob", "weather_table.weather", "--ruleset", str(ROOT / "rulesets/examples/house_rules/weather_table")],
    ["prob", "cohabitation.leisure.wilderness", "--lang", "ja"],
    ["prob", "camp.storm", "--ruleset", str(ROOT / "rulesets/examples/house_rules/storm_camp"), "--format", "json"],
], ids=["weather", "leisure in Japanese", "storm as JSON"])
def test_bundled_tables_print_their_rows(argv, capsys, monkeypatch) -> None:
    """The command prints every roll of a bundled table once, and its events add up to 1."""
    from interpreter.cli import main

    monkeypatch.setenv("MPRULES_NO_CACHE", "1")
    assert main(argv) == 0
    out = capsys.readouterr().out
    ruleset = load_ruleset(argv[argv.index("--ruleset") + 1] if "--ruleset" in argv else None)
    tables = engine.distribution(ruleset, argv[1], {}, lang="ja" if "ja" in argv else "en")
    assert sum(r.p for r in tables[1].rows) == 1 == sum(r.p for r in tables[0].rows)
    for table in tables:
        assert table.title in out
