"""``cachefile.derived``: a value computed from one file, kept in the cache while the file keeps its
path, size and time; recomputed (never trusted) when the entry is damaged, from another format or
written too soon after the file changed, or when the value cannot be kept exactly."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rules_dsl import cachefile

VALUE = {"core_check": {"faces": 20, "words": {"success": "成功"}, "results": [1, None, True, 2.5]}}
OLD = 1_600_000_000  # a modification time long before any entry is written


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cachefile.DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    path = tmp_path / "ruleset.yaml"
    path.write_text("parameters: {}\n", encoding="utf-8")
    os.utime(path, (OLD, OLD))
    return path


def _derive(source: Path, value: object = VALUE) -> tuple[object, int]:
    """The value ``derived`` returns and how many times it computed it."""
    made: list[int] = []
    result = cachefile.derived(str(source), "test", lambda: made.append(1) or value)
    return result, len(made)


def _entry(source: Path) -> Path:
    [entry] = [p for p in Path(cachefile.cache_root()).iterdir() if p.name.startswith("test-")]
    return entry


def test_a_kept_value_is_not_computed_again(source: Path) -> None:
    assert _derive(source) == (VALUE, 1)
    assert _derive(source) == (VALUE, 0)


# How an entry is spoilt -> it is recomputed, and the entry rewritten whole.
DAMAGE = {
    "empty": lambda blob: b"",
    "truncated": lambda blob: blob[: len(blob) // 2],
    "one byte changed": lambda blob: blob[:-3] + bytes([blob[-3] ^ 0x40]) + blob[-2:],
    "another format": lambda blob: b"MPRD0" + blob[5:],
    "garbage": lambda blob: b"\x00\xff" * 40,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_entry_is_recomputed(damage: str, source: Path) -> None:
    _derive(source)
    entry = _entry(source)
    entry.write_bytes(DAMAGE[damage](entry.read_bytes()))
    assert _derive(source) == (VALUE, 1)
    assert _derive(source) == (VALUE, 0)


# How the source changes -> recomputed.
CHANGES = {
    "longer": lambda path: (path.write_text("parameters: {a: 1}\n", encoding="utf-8"), os.utime(path, (OLD, OLD))),
    "newer": lambda path: os.utime(path, (OLD + 60, OLD + 60)),
    "same size and time, changed just before the entry": None,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_changed_source_is_read_again(change: str, source: Path) -> None:
    how = CHANGES[change]
    if how is None:  # an edit within the racy window keeps size and time: the entry is not trusted
        now = cachefile.time_ns() // 10**9
        os.utime(source, (now, now))
        _derive(source)
        assert _derive(source)[1] == 1
        return
    _derive(source)
    how(source)
    assert _derive(source)[1] == 1


def test_a_value_marshal_cannot_keep_is_computed_each_time(source: Path) -> None:
    odd = {"x": object()}
    assert _derive(source, odd)[1] == 1 and _derive(source, odd)[1] == 1
    assert not Path(cachefile.cache_root()).exists() or not any(Path(cachefile.cache_root()).iterdir())


def test_the_cache_turned_off_computes_each_time(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cachefile.DISABLE_ENV, "1")
    assert _derive(source)[1] == 1 and _derive(source)[1] == 1
    assert not Path(cachefile.cache_root()).exists()


def _code_tree(root: Path, installed: bool) -> None:
    for package in ("interpreter", "rules_dsl"):
        (root / package / "__pycache__").mkdir(parents=True)
        (root / package / "__init__.py").write_text("", encoding="utf-8")
        (root / package / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    (root / "rules_dsl" / "grammar.lark").write_text("start: NUMBER", encoding="utf-8")
    if installed:
        (root / "mprules-1.0.dist-info").mkdir()
        (root / "mprules-1.0.dist-info" / "RECORD").write_text("rules_dsl/__init__.py,,\n", encoding="utf-8")
    for path in root.rglob("*"):
        os.utime(path, (OLD, OLD))


def _touch(path: Path, text: str | None = None) -> None:
    if text is not None:
        path.write_text(text, encoding="utf-8")
    os.utime(path, (OLD + 60, OLD + 60))


@pytest.mark.parametrize("installed, change, changes_stamp", [
    (False, lambda r: _touch(r / "rules_dsl" / "__init__.py"), True),           # an edit in place
    (False, lambda r: _touch(r / "interpreter" / "__init__.py", "x = 1\n"), True),
    (False, lambda r: _touch(r / "rules_dsl" / "grammar.lark"), True),
    (False, lambda r: (r / "interpreter" / "new.py").write_text("", encoding="utf-8"), True),
    (False, lambda r: (r / "rules_dsl" / "__init__.py").unlink(), True),
    (False, lambda r: _touch(r / "rules_dsl" / "__pycache__" / "x.pyc", "other"), False),
    (False, lambda r: (r / "README.md").write_text("", encoding="utf-8"), False),
    (True, lambda r: _touch(r / "mprules-1.0.dist-info" / "RECORD", "rules_dsl/a.py,,\n"), True),
    (True, lambda r: _touch(r / "mprules-1.0.dist-info" / "RECORD"), True),   # installed again
    (True, lambda r: _touch(r / "rules_dsl" / "__init__.py"), False),          # RECORD stands for it
    (True, lambda r: (r / "mprules-1.0.dist-info").rename(r / "mprules-1.1.dist-info"), True),
])
def test_the_code_stamp_changes_with_the_code(tmp_path: Path, installed: bool, change, changes_stamp) -> None:
    _code_tree(tmp_path, installed)
    before = cachefile.stamp_of(str(tmp_path))
    assert before == cachefile.stamp_of(str(tmp_path))
    assert before.startswith("installed" if installed else "checkout")
    change(tmp_path)
    assert (cachefile.stamp_of(str(tmp_path)) != before) is changes_stamp


def test_this_checkouts_stamp_is_kept_for_the_process() -> None:
    assert cachefile.code_stamp() is cachefile.code_stamp()
