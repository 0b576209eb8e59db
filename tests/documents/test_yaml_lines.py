"""The line reader (``yaml_lines.read``, what ``load_text`` tries first) against the step-by-step
event path (``load_text(stepwise=True)``): the same documents (data with its types, positions and
their order, written texts, readings, nodes, cost, index, first line) or the same error (code,
place, message), on every YAML file of the repository, on a table of edge cases, and on seeded
random documents of the shapes it reads and just outside them. The reader must also take the
shapes the benchmarks and GMs write itself (a test that fails if it always falls back)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter.documents import yaml_lines
from interpreter.documents.loader import load_text
from interpreter.documents.yaml_events import Builder
from rules_dsl.errors import MprError

ROOT = Path(__file__).parents[2]
FILES = sorted(p for folder in ("rulesets", "tests", "fuzz", "templates", "interpreter", "benchmarks")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def outcome(text: str | bytes, stepwise: bool) -> object:
    """What loading ``text`` gives: every document's fields (``repr`` of the data tells ``1``
    from ``1.0`` and ``True``), or the error's code, place and message."""
    try:
        docs = load_text(text, "t.yaml", stepwise=stepwise)
    except MprError as error:
        return ("error", error.code, error.loc, str(error))
    return [(doc.index, doc.line, repr(doc.data), list(doc.positions.items()),
             list(doc.texts.items()), doc.readings, doc.nodes, doc.cost) for doc in docs]


def taken(text: str) -> bool:
    """Whether the line reader reads ``text`` itself (no fall back to the event path)."""
    return yaml_lines.read(text, Builder("t.yaml")) is not None


def same(text: str | bytes) -> object:
    fast = outcome(text, False)
    assert fast == outcome(text, True)
    return fast


def test_the_files_are_found_and_many_are_read_fast() -> None:
    assert len(FILES) > 100
    read = [p for p in FILES if taken(p.read_bytes().decode("utf-8", "replace").lstrip("\ufeff"))]
    assert len(read) > 50


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_file_of_the_repository(path: Path) -> None:
    same(path.read_bytes())


# (name, text, whether the line reader reads it itself)
EDGES = [
    ("empty", "", True),
    ("comments only", "# a\n  # b\n\n", True),
    ("plain scalars", "a: x\nb: x y  z\nc: 'x'\nd: \"x\"\n", True),
    ("core values", "a: yes\nb: 1:30\nc: 0x1F\nd: 1e3\ne: ~\nf: null\ng: NULL\nh: 014\n"
     "i: 0o14\nj: -5\nk: +1\nl: 1.0\nm: true\nn: True\no: '1'\np: 1_000\nq: 0b11\nr: =\n", True),
    ("infinity", "a: .inf\n", False),
    ("nan", "a: [.nan]\n", False),
    ("repeated readings", "- yes\n- {a: yes, b: [yes, no]}\n- yes\n- k: yes\n", True),
    ("hash inside values", "a: b#c\nb: 'x # y'\nc: x # comment\nd: {e: 'f # g'}\n", True),
    ("colon inside quotes", "a: 'b: c'\nb: \"c: d\"\nc: [\"x: y\", 'z: w']\n", True),
    ("colon inside plain", "a: b:c\nb: http://x.y/z\nc: b: c\n", False),
    ("key with colon", "a:b: c\n", True),
    ("trailing spaces", "a: x   \nb:   \nc: 'y'  \nd: [1]   \n- e\n", False),
    ("trailing spaces map", "a: x   \nb:   \nc: 'y'  \nd: [1]   \n", True),
    ("empty values", "a:\nb: # c\nc: []\nd: {}\ne: ''\n", True),
    ("empty items", "-\n- # c\n- ''\n-   \n", True),
    ("nested sequences", "- - x\n  - y\n- - - z\n-   - w\n", True),
    ("key then nested block", "a:\n  b:\n    c: 1\n  d:\n  - 2\n  - 3\ne: 4\n", True),
    ("sequence at its key's indentation", "a:\n- 1\n- {b: 2}\nc:\n- - 3\n", True),
    ("compact mappings", "- a: 1\n  b: 2\n-   c: 3\n    d: [4]\n- e:\n    f: 5\n", True),
    ("flow inside block", "rows:\n  - {id: a, when: n > 0, value: 1}\n  - [1, 'b', \"c\", {d: e}]\n",
     True),
    ("nested flow", "a: {b: [1, [2, {c: [3]}]], d: {}}\n", True),
    ("flow spaces", "a: {  b:  1 ,c: 2  }\nd: [ 1 , 2 ]\n", True),
    ("flow trailing comma", "a: [1, 2, ]\n", False),
    ("flow json key", "a: {\"b\":1}\n", False),
    ("flow multi-line", "a: [1,\n  2]\n", False),
    ("flow empty entry", "a: [1, , 2]\n", False),
    ("flow single pair", "a: [b: c]\n", False),
    ("flow key only", "a: {b, c: 1}\n", False),
    ("quoted keys", "'a b': 1\n\"c\": 2\n'it''s': 3\n'<<': 4\n", True),
    ("quotes doubled", "a: 'it''s'\nb: ''''\nc: {d: 'e''f'}\n", True),
    ("unicode", "説明: 日本語のキー\ntitle: {ja: 大きな表, en: A big table}\n- 表\n", False),
    ("unicode map", "説明: 日本語のキー\ntitle: {ja: 大きな表, en: A big table}\nx: 😀\n", True),
    ("crlf", "a: 1\r\nb:\r\n  - x\r\n  - {c: d}\r\n", True),
    ("lone cr", "a: 1\rb: 2\n", False),
    ("bom", "\ufeffa: 1\nb: [x, y]\n", True),
    ("documents", "a: 1\n---\n---\n# nothing\n---\n- x\n- {y: 2}\n--- # c\nb: 2\n", True),
    ("document start first", "# c\n---\na: 1\n", True),
    ("document end", "a: 1\n...\n", False),
    ("document with value", "--- a\n", False),
    ("a trailing start", "a: 1\n---\n", True),
    ("root flow", "[1, 2, {a: b}]\n", True),
    ("root scalar", "hello\n", False),
    ("root indented", "  a: 1\n  b: 2\n", True),
    ("root dedent", "  a: 1\nb: 2\n", False),
    ("multi-line plain", "a: b\n  c\n", False),
    ("multi-line item", "- a\n  b\n", False),
    ("block scalar", "a: |\n  x\n", False),
    ("folded scalar", "a: >\n  x\n", False),
    ("escape", "a: \"x\\ty\"\n", False),
    ("backslash", "a: 'x\\y'\nb: x\\y\n", True),
    ("anchor and alias", "a: &x 1\nb: *x\n", False),
    ("tag", "a: !!str 1\n", False),
    ("question key", "? a\n: b\n", False),
    ("directive", "%YAML 1.2\n---\na: 1\n", False),
    ("merge", "a: {b: 1}\nc:\n  <<: {d: 2}\n", False),
    ("duplicate", "a: 1\na: 2\n", False),
    ("duplicate after pending", "a:\na: 2\n", False),
    ("duplicate in flow", "a: {b: 1, b: 2}\n", False),
    ("tab", "a:\tb\n", False),
    ("full-width space", "a:\n\u3000b: 1\n", False),
    ("full-width colon", "a:\n  allowance：3\n", False),
    ("bad indentation", "a:\n  b: 1\n c: 2\n", False),
    ("more indented key", "a: 1\n  b: 2\n", False),
    ("item after mapping", "a: 1\n- b\n", False),
    ("key after sequence", "- a\nb: 1\n", False),
    ("dash value", "a: - b\n", False),
    ("dash alone", "a: -\n", False),
    ("negative numbers", "a: -1\nb: [-2, -3.5]\nc: {d: -e}\n", True),
    ("indicator first", "a: @b\n", False),
    ("comma first", "a: ,b\n", False),
    ("long key", "k" * 1100 + ": 1\n", False),
    ("deep block", "".join("  " * n + f"k{n}:\n" for n in range(70)) + "  " * 70 + "v: 1\n", False),
    ("deep flow", "a: " + "[" * 70 + "]" * 70 + "\n", False),
    ("16 deep", "".join("  " * n + f"k{n}:\n" for n in range(20)) + "  " * 20 + "v: [1, {w: 2}]\n",
     True),
    ("big int", "a: " + "9" * 101 + "\n", False),
    ("syntax", "a: [1, 2\nb: 3\n", False),
    ("unclosed quote", "a: 'b\n", False),
    ("quote then text", "a: 'b' c\n", False),
    ("hash after quote", "a: 'b'#c\n", False),
    ("merge-like plain value", "a: <<\nb: [<<]\n", True),
    ("plain with brackets", "a: x[1]\nb: y{2}, z\n", True),
    ("space before colon", "a : 1\nb  :  2\n", True),
    ("three dashes as value", "a: ---\n- ---\n", False),
    ("three dashes value map", "a: ---\nb: ...\n", True),
]


@pytest.mark.parametrize("name,text,fast", EDGES, ids=[e[0] for e in EDGES])
def test_edge_cases(name: str, text: str, fast: bool) -> None:
    same(text)
    assert taken(text.lstrip("\ufeff")) is fast


def test_the_edge_cases_reach_documents_and_errors() -> None:
    """The table compares loaded documents and refusals, not errors alone."""
    outcomes = [same(text) for _, text, _ in EDGES]
    assert sum(1 for o in outcomes if isinstance(o, tuple)) >= 10
    assert sum(1 for o in outcomes if isinstance(o, list) and o) >= 50


# more texts near the edges of the reader's shapes, compared only
NEAR = ["a: b]\n", "a: b}\n", "a: x,y\n", "- a]\n", "a: 'b'c\n", 'a: "b" # c\n', 'a: "b"#c\n',
        "a]: 1\n", "a,b: 1\n", "a{b: 1\n", "- a: b: c\n", "-a: 1\n", "a: {a: b c}\n", "a: [a b]\n",
        "a: {a: 'b' }\n", "a: [ 'x' ]\n", "a: [x ]\n", "a: { }\n", "a: [ ]\n", "a: [x]]\n",
        "a: \u00a0x\n", "a: x\u00a0\n", "a: '  s  '\n", "a': 1\n", '"a" : 1\n', "'a'  :  1\n",
        "'a':x\n", "- []\n- {}\n- - - x\n", "a: [x]#c\n", "a: x #\n", "a: x#\n", "a: b #c: d\n",
        "a #b: c\n", "a: [x#y]\n", "a: [x:y]\n", "a: [x: y]\n", "a: {x:y}\n", "a: {x: y:z}\n",
        "a: [-x, - y]\n", "a: [-1, -]\n", "- 'a': 1\n  'b': 2\n", "a: b\n\n\n  # c\nc: d\n",
        "a:\n\n  b: 1\n", "a:\n  # c\n  - 1\n", "a:\n  -\n  - 2\n", "-\n  a: 1\n-\n  - 2\n",
        "a: !x\n", "a: x !y\n", "a: x &y\n", "a: x *y\n", "a: x|y\n", "a: %x\n", "a: `x\n",
        "a: ?x\n", "a: :x\n", "a: x:\n", "a: x: \n", "a: {? x}\n", "- ? x\n", "a: [? x]\n",
        "---\n---\n", "--- \n", "---", "a: 1\n--- \n# c\n", "a:    \n  b: 1\n",
        "a: [1, 2]  \n  b: 1\n", "x: {a: 1}\nx: 2\n", "- {a: 1}\n  - b\n", "- {a: 1}\n  b: 2\n",
        "- [1]\n  - 2\n", "- x\n -y\n", "a:\n - b\n - c\nd: 1\n", "a:\n - b\n  - c\n",
        "a: 'x'\n 'y'\n", "a: \"x\n", "a: 'x'' \n", "k: " + "x" * 2000 + "\n",
        "k: [" + ", ".join(["1"] * 3000) + "]\n", "a: 1\r\nb: 2\r", "a: 1\n\ufeff", "a: x\u2028y\n",
        "a: x\x85y\n", "\U0001F600: 1\n", "a: {\U0001F600: [\U0001F600]}\n", "a: 1\n...: 2\n",
        "...: 1\n", "a: 1\n... : 2\n", "a: 1\n...\n", "a: 1\n---: 2\n", "a: 1\n--- : 2\n",
        "- a\n... \n- b\n", "- a\n---\n- b\n", "a:\n  b: 1\n  ...: 2\n"]


@pytest.mark.parametrize("text", NEAR)
def test_near_the_edges(text: str) -> None:
    same(text)


SCALARS = ["a", "r9_0", "n > 0", "x y", "1", "0", "014", "1.5", "-2", "1e3", ".5", "yes", "No",
           "on", "~", "null", "NULL", "true", "False", "1:30", "0x1F", "0o17", "0b1", "1_0", "=",
           "'q'", "'it''s'", '"dq"', "''", '""', "'a: b'", "'# c'", "表", "出来事", "a#b", "-x",
           "x-", "http://a", "<<", ".inf", "a'b", "[1, 2]", "{k: v}", "[]", "{}", "[a, [b]]"]
KEYS = ["id", "when", "value", "roll", "text", "a b", "1", "no", "'q k'", '"d"', "表", "x.y"]
MUTATIONS = ["\t", "&a ", "*a", "!!str ", "? ", ": ", " #", "#", "'", '"', "[", "]", "{", "}", ",",
             "-", "- ", "|", ">", "\u3000", "：", "\n", "\n  ", " ", "  ", "---\n", "...\n", "\\", "%",
             "<<: ", "\r", "@", "... ", "...", "--- ", "\n... ", "\n--- "]


def _scalar(rng: random.Random, depth: int) -> str:
    text = rng.choice(SCALARS)
    if depth < 3 and rng.random() < 0.15:
        inner = ", ".join(_scalar(rng, depth + 1) for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.5:
            return f"[{inner}]"
        keys = rng.sample([k for k in KEYS if not k.startswith(("'", '"'))], rng.randint(0, 3))
        return "{" + ", ".join(f"{k}: {_scalar(rng, depth + 1)}" for k in keys) + "}"
    return text


def _block(rng: random.Random, indent: int, depth: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if rng.random() < 0.5 or depth > 3:
        for key in rng.sample(KEYS, rng.randint(1, 4)):
            if depth < 4 and rng.random() < 0.3:
                lines.append(f"{pad}{key}:" + rng.choice(["", " ", "  # c"]))
                inner = indent + rng.choice([2, 4]) if rng.random() < 0.8 else indent
                if inner == indent:  # a sequence at its key's indentation
                    lines += [f"{pad}- {_scalar(rng, 0)}" for _ in range(rng.randint(1, 3))]
                else:
                    lines += _block(rng, inner, depth + 1)
            else:
                lines.append(f"{pad}{key}: {_scalar(rng, 0)}" + rng.choice(["", " ", " # c"]))
    else:
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.3 and depth < 4:
                inner = _block(rng, indent + 2, depth + 1)
                lines.append(f"{pad}- " + inner[0][indent + 2:])
                lines += inner[1:]
            elif roll < 0.4:
                lines.append(f"{pad}-" + rng.choice(["", " # c"]))
                if rng.random() < 0.5 and depth < 4:
                    lines += _block(rng, indent + 2, depth + 1)
            else:
                lines.append(f"{pad}- {_scalar(rng, 0)}")
    if rng.random() < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["", "# note", f"{pad}  # note"]))
    return lines


def _document(rng: random.Random) -> str:
    parts = []
    for number in range(rng.choice([1, 1, 1, 2, 3])):
        if number or rng.random() < 0.1:
            parts.append("---" + rng.choice(["", " # c"]))
        parts += _block(rng, rng.choice([0, 0, 0, 2]), 0)
    text = "\n".join(parts) + rng.choice(["\n", "", "\n\n"])
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def _mutated(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 2)):
        at = rng.randrange(len(text) + 1)
        if rng.random() < 0.3 and text:
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + rng.choice(MUTATIONS) + text[at:]
    return text


@pytest.mark.parametrize("seed", range(8))
def test_generated_documents(seed: int) -> None:
    """300 documents of the shapes the reader takes, and 300 of them each changed a little
    (most just outside those shapes: a tab, an anchor, a stray colon, a bracket left open...)."""
    rng = random.Random(seed)
    read = refused = 0
    for _ in range(300):
        text = _document(rng)
        read += taken(text)
        same(text)
        changed = _mutated(rng, text)
        refused += isinstance(same(changed), tuple)
    assert read > 150 and refused > 20  # both the reader and the errors are reached


def _variant_rows(rows: int) -> str:
    edits = "\n".join(f"      - {{id: r9_{i}, when: n > {i % 10}, value: 1}}" for i in range(rows))
    return (f'id: l9\nversion: "0.1.0"\ntitle: {{en: l9}}\nextends: ../l8\noverrides:\n'
            f"  big.table:\n    rows:\n{edits}\n")


def _block_rows(rows: int) -> str:
    return "id: big.table\nkind: RollTable\nrows:\n" + "".join(
        f"  - roll: {i}\n    id: r{i}\n    text: {{ja: 出来事{i}, en: 'event {i}'}}\n    when: yes\n"
        for i in range(rows))


def _roll_rows(rows: int) -> str:
    return "id: big.table\nkind: RollTable\nrows:\n" + "".join(
        f"  - {{roll: {i}, id: r{i}}}\n" for i in range(1, rows + 1))


@pytest.mark.parametrize("shape", [_variant_rows, _block_rows, _roll_rows])
def test_the_shapes_of_the_benchmarks_are_read_by_the_line_reader(shape: object) -> None:
    text = shape(300)  # type: ignore[operator]
    assert taken(text)
    docs = same(text)
    assert isinstance(docs, list) and len(docs) == 1
