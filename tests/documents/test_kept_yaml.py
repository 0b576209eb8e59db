"""Data texts kept between commands (``interpreter.documents.kept_yaml``): a text read before gives
the same documents as PyYAML gives, without PyYAML; a text with an error or a reading to show is
never kept; an entry of another name, another text or a damaged one is never used."""
from __future__ import annotations

import os

import pytest

from interpreter.documents import kept_yaml, loader
from rules_dsl import cachefile
from rules_dsl.errors import MprError


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cachefile.DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    return tmp_path / "cache" / kept_yaml.FOLDER


def _fields(docs) -> list[tuple]:
    return [(d.data, d.positions, d.file, d.index, d.line, dict(d.texts), tuple(d.readings)) for d in docs]


def _reads(monkeypatch) -> list[str]:
    calls: list[str] = []
    original = loader.load_text

    def counting(text, file="<input>", **kwargs):
        calls.append(file)
        return original(text, file, **kwargs)

    monkeypatch.setattr(loader, "load_text", counting)
    return calls


TEXTS = [
    "item: {materials: [鋼], quality: 標準}\n",
    "a: &x [1, 2]\nb: *x\nc: {<<: {d: 1}, e: 14}\n",
    "- ~\n- true\n- -0.0\n- 2.5\n- '2001-01-01'\n- \"\\u00e9\"\n",
    "\ufeffkey: value\n---\nsecond: 2\n",
    "# only a comment\n",
    "12",
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_text_read_again_is_the_same_without_pyyaml(text, cache, monkeypatch) -> None:
    reads = _reads(monkeypatch)
    expected = _fields(loader.load_text(text, "--var x"))
    assert not any(readings for *_, readings in expected)  # (a text with some is never kept)
    first = kept_yaml.load_text(text, "--var x")
    second = kept_yaml.load_text(text.encode("utf-8"), "--var x")
    assert _fields(first) == _fields(second) == expected
    assert reads == ["--var x", "--var x"]  # the expected and the first read; the second is kept


@pytest.mark.parametrize("text, code", [
    ("a: [1\n", "MPR206"),
    ("a: 1\na: 2\n", "MPR207"),
    ("a: !!python/object x\n", "MPR208"),
    ("a:\n\tb: 1\n", "MPR205"),
    ("a: .nan\n", "MPR216"),
])
def test_a_text_with_an_error_is_read_every_time_with_the_same_error(text, code, cache, monkeypatch) -> None:
    reads = _reads(monkeypatch)
    errors = []
    for _ in range(2):
        with pytest.raises(MprError) as raised:
            kept_yaml.load_text(text, "in.yaml")
        errors.append((raised.value.code, str(raised.value.loc)))
    assert errors[0] == errors[1] and errors[0][0] == code and errors[0][1].startswith("in.yaml:")
    assert len(reads) == 2 and not (cache.exists() and any(cache.iterdir()))


def test_a_text_with_readings_to_show_is_never_kept(cache, monkeypatch) -> None:
    reads = _reads(monkeypatch)
    for _ in range(2):
        docs = kept_yaml.load_text("flag: yes\n", "in.yaml")
        assert docs[0].readings  # MPR325 is shown by every command that reads it
    assert len(reads) == 2


def test_another_name_another_text_or_damage_is_not_used(cache, monkeypatch) -> None:
    kept_yaml.load_text("a: 1\n", "one.yaml")
    reads = _reads(monkeypatch)
    assert kept_yaml.load_text("a: 1\n", "two.yaml")[0].positions[()][0] == "two.yaml"
    assert kept_yaml.load_text("a: 2\n", "one.yaml")[0].data == {"a": 2}
    assert len(reads) == 2
    for entry in cache.iterdir():
        blob = entry.read_bytes()
        entry.write_bytes(blob[:-3] + b"xyz")
    assert kept_yaml.load_text("a: 1\n", "one.yaml")[0].data == {"a": 1}
    assert len(reads) == 3


def test_load_file_refuses_as_the_loader_does(tmp_path, cache) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: 1\n" * 10, encoding="utf-8")
    for path, limit in ((str(tmp_path / "missing.yaml"), 100), (str(tmp_path), 100), (str(big), 10)):
        with pytest.raises(MprError) as mine:
            kept_yaml.load_file(path, max_bytes=limit)
        with pytest.raises(MprError) as theirs:
            loader.load_file(path, max_bytes=limit)
        assert (mine.value.code, str(mine.value.loc), mine.value.args_) == (
            theirs.value.code, str(theirs.value.loc), theirs.value.args_)


def test_the_folder_keeps_at_most_its_limit(cache, monkeypatch) -> None:
    monkeypatch.setattr(kept_yaml, "MAX_KEPT_TEXTS", 3)
    for n in range(6):
        kept_yaml.load_text(f"a: {n}\n", "in.yaml")
    assert len(os.listdir(cache)) == 3
