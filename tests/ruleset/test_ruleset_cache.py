"""The compiled-ruleset cache: an entry is used only while every file it was built from is
unchanged; a damaged entry is rebuilt; it can be turned off; concurrent writers are safe."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interpreter.ruleset import cache as ruleset_cache
from rules_dsl import cachefile
from interpreter.documents.resources import bundled_ruleset
from interpreter.checks.loading import load_ruleset
from rules_dsl.errors import MprError


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(ruleset_cache.DIR_ENV, str(directory))
    monkeypatch.delenv(ruleset_cache.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    return directory


@pytest.fixture
def ruleset_copy(tmp_path):
    target = tmp_path / "rs"
    shutil.copytree(bundled_ruleset(), target)
    return target


def _builds(monkeypatch) -> list[int]:
    """Count the loads that did not come from the cache."""
    from interpreter.checks import loading as module

    calls: list[int] = []
    original = module._load_checked

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "_load_checked", counting)
    return calls


def _same(a, b) -> None:
    assert a.id == b.id and a.content_hash == b.content_hash and a.parameters == b.parameters
    assert set(a.rules) == set(b.rules)
    for rule_id, rule in a.rules.items():
        other = b.rules[rule_id]
        assert (rule.doc, rule.params, rule.positions, rule.adopted, rule.param_layers) == (
            other.doc, other.params, other.positions, other.adopted, other.param_layers)


def _entries(cache: Path) -> list[Path]:
    """The ruleset entries of the cache folder (named by their 64-digit key; other caches beside)."""
    return [p for p in cache.glob("*.bin") if len(p.stem) == 64]


def test_second_load_comes_from_the_cache_and_is_equal(cache, ruleset_copy, monkeypatch):
    builds = _builds(monkeypatch)
    first = load_ruleset(ruleset_copy)
    second = load_ruleset(ruleset_copy)
    assert len(builds) == 1
    _same(first, second)
    assert len(_entries(cache)) == 1


@pytest.mark.parametrize("change", ["edit", "add", "remove"])
def test_any_change_to_its_files_rebuilds(cache, ruleset_copy, monkeypatch, change):
    builds = _builds(monkeypatch)
    load_ruleset(ruleset_copy)
    if change == "edit":
        path = ruleset_copy / "rest.yaml"
        path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    elif change == "add":
        (ruleset_copy / "extra.yaml").write_text(
            (ruleset_copy / "rest.yaml").read_text(encoding="utf-8").replace("id: rest.", "id: extra."),
            encoding="utf-8")
    else:
        (ruleset_copy / "equipment.yaml").unlink()
    load_ruleset(ruleset_copy)
    assert len(builds) == 2


def test_the_schemas_are_among_its_dependencies(ruleset_copy):
    deps = ruleset_cache._dependencies(load_ruleset(ruleset_copy))
    names = {Path(name).name for name, *_ in deps["files"]}
    assert {"rule.json", "ruleset.json", "rest.yaml", "ruleset.yaml"} <= names
    assert all(digest and size > 0 and mtime_ns > 0 for _, digest, size, mtime_ns in deps["files"])


def _age(path: Path, seconds: float) -> None:
    """Make ``path`` last modified ``seconds`` ago."""
    import os
    import time

    when = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(when, when))


# (seconds before the entry within which a change counts as racy, edit keeps size and time, the
# entry is used). The files were last changed 60 s before the entry.
STAT_CASES = [
    (2, False, False),    # an edit changes the time: hashed again, the change is seen
    (2, True, True),      # same size and time, old enough: taken as unchanged without reading it
    (3600, True, False),  # same size and time, but changed too close to the entry: hashed again
]


@pytest.mark.parametrize(("racy", "keep_stat", "entry_used"), STAT_CASES)
def test_a_file_is_known_unchanged_by_its_size_and_time_unless_racy(
        cache, ruleset_copy, monkeypatch, racy, keep_stat, entry_used):
    import os

    monkeypatch.setattr(ruleset_cache, "RACY_SECONDS", racy)
    for path in ruleset_copy.iterdir():
        _age(path, 60)
    builds = _builds(monkeypatch)
    load_ruleset(ruleset_copy)
    path = ruleset_copy / "rest.yaml"
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("# R4 rest", "# R4 REST", 1), encoding="utf-8")  # same size
    assert path.stat().st_size == before.st_size
    if keep_stat:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    load_ruleset(ruleset_copy)
    assert len(builds) == (1 if entry_used else 2)


# (what happens to the ruleset's folder, the folder's time kept, whether the listing is read
# again, the entry is used). The folder was last changed 60 s before the entry.
FOLDER_CASES = [
    ("nothing", False, False, True),       # its time says nothing was added or removed
    ("a file added", False, True, False),  # the time changed: read again, the new file is seen
    ("a file added", True, True, False),   # time set back by hand: still read, within RACY (3600)
]


@pytest.mark.parametrize(("change", "keep_time", "listed", "entry_used"), FOLDER_CASES)
def test_a_folder_is_known_unchanged_by_its_time(cache, ruleset_copy, monkeypatch, change, keep_time,
                                                 listed, entry_used):
    import os

    if keep_time:
        monkeypatch.setattr(ruleset_cache, "RACY_SECONDS", 3600)
    for path in [ruleset_copy, *ruleset_copy.iterdir()]:
        _age(path, 60)
    builds = _builds(monkeypatch)
    load_ruleset(ruleset_copy)
    before = ruleset_copy.stat()
    if change == "a file added":
        text = (ruleset_copy / "rest.yaml").read_text(encoding="utf-8").split("---")[1]
        (ruleset_copy / "nap.yaml").write_text(text.replace("id: rest.short", "id: rest.nap"), encoding="utf-8")
        if keep_time:
            os.utime(ruleset_copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    reads: list[str] = []
    real = ruleset_cache.listing
    monkeypatch.setattr(ruleset_cache, "listing", lambda d, g: reads.append(d) or real(d, g))
    load_ruleset(ruleset_copy)
    assert bool(reads) == listed and len(builds) == (1 if entry_used else 2)


@pytest.mark.parametrize("damage", [b"", b"MPRC2", b"garbage" * 10, None, "index", "cut"])
def test_a_damaged_entry_is_rebuilt_never_trusted(cache, ruleset_copy, monkeypatch, damage):
    builds = _builds(monkeypatch)
    first = load_ruleset(ruleset_copy)
    (entry,) = _entries(cache)
    blob = entry.read_bytes()
    if damage is None:  # one byte flipped in a rule: its own checksum no longer matches
        blob = blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:]
    elif damage == "index":  # one byte flipped in the ruleset's fields or the index of its rules
        at = blob.index(b"procurement.rarity")
        blob = blob[:at] + bytes([blob[at] ^ 0xFF]) + blob[at + 1:]
    elif damage == "cut":  # the file cut short: the last rules are missing
        blob = blob[:-100]
    else:
        blob = damage
    entry.write_bytes(blob)
    again = load_ruleset(ruleset_copy)
    # a damaged rule is found when it is read (a command reads only the rules it runs): all the
    # rules are then made again from the files, none of the entry's trusted
    assert "procurement.rarity" in again.rules and len(builds) == 2
    assert _docs(again) == _docs(first)
    if not isinstance(damage, str):
        return
    (entry,) = _entries(cache)  # written again whole
    assert _docs(load_ruleset(ruleset_copy)) == _docs(first) and len(builds) == 2


def _docs(ruleset) -> dict:
    return {rule_id: (rule.doc, rule.params, rule.layer) for rule_id, rule in ruleset.rules.items()}


def test_the_cache_can_be_turned_off(cache, ruleset_copy, monkeypatch):
    builds = _builds(monkeypatch)
    monkeypatch.setenv(ruleset_cache.DISABLE_ENV, "1")
    load_ruleset(ruleset_copy)
    load_ruleset(ruleset_copy)
    assert len(builds) == 2 and not cache.exists()


def test_overrides_and_adoption_are_separate_entries(cache, ruleset_copy, monkeypatch):
    builds = _builds(monkeypatch)
    plain = load_ruleset(ruleset_copy)
    off = load_ruleset(ruleset_copy, adopt={"procurement.rarity": False})
    assert plain.rules["procurement.rarity"].adopted and not off.rules["procurement.rarity"].adopted
    load_ruleset(ruleset_copy, adopt={"procurement.rarity": False})
    assert len(builds) == 2


def test_an_unwritable_cache_is_no_error(tmp_path, ruleset_copy, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(ruleset_cache.DIR_ENV, str(blocker / "cache"))
    monkeypatch.setattr(cachefile, "_disabled", False)
    assert "procurement.rarity" in load_ruleset(ruleset_copy).rules


def test_concurrent_writers_leave_one_good_entry(cache, ruleset_copy):
    script = ("import sys; from interpreter.checks.loading import load_ruleset; "
              "print(len(load_ruleset(sys.argv[1]).rules))")
    env_cache = {"MPRULES_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(ruleset_copy)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env_cache, cwd=Path(__file__).resolve().parents[2])
             for _ in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert len({out for out, _ in outputs}) == 1
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".bin")] == []


def test_the_no_cache_option_turns_it_off(cache, ruleset_copy, monkeypatch, capsys, tmp_path):
    from interpreter.cli import main

    item = tmp_path / "item.yaml"
    item.write_text("item: {materials: [鋼], quality: 標準}\n", encoding="utf-8")
    builds = _builds(monkeypatch)
    for _ in range(2):
        assert main(["--no-cache", "run", "procurement.rarity", "--ruleset", str(ruleset_copy),
                     "--format", "json", "--input", str(item)]) == 0
    monkeypatch.setattr(cachefile, "_disabled", False)
    assert len(builds) == 2 and not cache.exists()


@pytest.mark.parametrize("data", [b"", b"abc", "ルール".encode(), bytes(range(256)) * 4096])
def test_the_cache_hashes_as_hashlib_does(data):
    import hashlib

    assert cachefile.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert cachefile.sha256(data).digest() == hashlib.sha256(data).digest()


@pytest.mark.parametrize("before, removed", [(3, 0), (4, 0), (5, 1), (7, 3)])  # with a limit of 5 entries
def test_the_cache_keeps_the_newest_entries(cache, ruleset_copy, monkeypatch, before, removed):
    """Writing an entry removes the oldest written beyond the limit (never the one just written),
    and what writes interrupted long ago left behind; other files of the cache stay."""
    import os

    from interpreter.ruleset import limits

    monkeypatch.setattr(limits, "MAX_CACHED_RULESETS", 5)
    cache.mkdir()
    old = [cache / f"{n:064x}.bin" for n in range(before)]
    for n, path in enumerate(old):
        path.write_bytes(b"entry")
        os.utime(path, (1_600_000_000 + n, 1_600_000_000 + n))
    others = [cache / "expressions.bin", cache / "manifest-parameters-1f2b3028.bin",
              cache / "notes.txt", cache / "x.bin.123-1-0.tmp"]
    for path in others:
        path.write_bytes(b"other")
    stale = cache / "y.bin.99-1-0.tmp"
    stale.write_bytes(b"half")
    os.utime(stale, (1_600_000_000, 1_600_000_000))
    load_ruleset(ruleset_copy)
    entries = sorted(p for p in cache.iterdir() if p.suffix == ".bin" and len(p.stem) == 64)
    assert [p for p in old if p.exists()] == old[removed:]
    assert len(entries) == before - removed + 1
    assert all(p.exists() for p in others) and not stale.exists()


def _digests(monkeypatch) -> list[str]:
    """Count the files the cache hashes (instead of trusting their size and time)."""
    calls: list[str] = []
    original = ruleset_cache._digest

    def counting(path):
        calls.append(path)
        return original(path)

    monkeypatch.setattr(ruleset_cache, "_digest", counting)
    return calls


def test_an_entry_true_only_by_hashing_is_written_again_and_then_only_stats(cache, ruleset_copy,
                                                                          monkeypatch):
    """A ruleset cached right after its files were written (edited, installed) is hashed to be
    trusted; once its files are older than RACY_SECONDS, the entry is written again with the times
    checked, and the next command hashes nothing."""
    builds = _builds(monkeypatch)
    first = load_ruleset(ruleset_copy)
    old = time.time() - 60
    for path in ruleset_copy.rglob("*.yaml"):
        os.utime(path, (old, old))  # the same contents, another time: trusted only by hashing
    digests = _digests(monkeypatch)
    second = load_ruleset(ruleset_copy)
    assert digests, "the files with a new time were hashed"
    digests.clear()
    third = load_ruleset(ruleset_copy)
    assert digests == [] and len(builds) == 1
    _same(first, second)
    _same(first, third)
    (ruleset_copy / "ruleset.yaml").write_text(
        (ruleset_copy / "ruleset.yaml").read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    load_ruleset(ruleset_copy)
    assert len(builds) == 2  # a changed file is still seen


def test_a_cached_ruleset_unpickles_only_the_rules_asked_for(cache, ruleset_copy):
    first = load_ruleset(ruleset_copy)
    warm = load_ruleset(ruleset_copy)
    rule_id = next(iter(first.rules))
    assert warm.rule(rule_id).doc == first.rules[rule_id].doc
    assert "rules" not in vars(warm) and list(warm._pending.made) == [rule_id]
    with pytest.raises(MprError) as raised:
        warm.rule("no.such.rule")
    assert raised.value.code == "MPR401"
    _same(first, warm)  # reading .rules makes all of them, equal to those read from the files
    assert warm.rules[rule_id] is warm.rule(rule_id)


def test_a_variant_with_folded_rows_is_kept_in_marshals_format(cache, tmp_path):
    """A folded rule's positions are read in place (``merge.Folded``); the cache keeps them as a
    dict, so the entry is still marshal's (read without pickle) and locates as before."""
    variant = Path(__file__).resolve().parents[2] / "rulesets" / "examples" / "strict_procurement"
    built = load_ruleset(variant)
    rule = next(r for r in built.rules.values() if type(r.positions) is not dict)
    again = load_ruleset(variant)  # from the cache
    assert again is not built and dict(again.rules[rule.id].positions) == dict(rule.positions)
    assert ruleset_cache._encode(built)[1][:1] == ruleset_cache._INDEXED


@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "past it"])
def test_a_variant_folding_more_rows_than_the_bound_is_not_cached(cache, monkeypatch, past):
    """Past ``MAX_CACHED_FOLDED_ROWS`` rows folded from row edits, the ruleset is read again by
    each command (making its positions one dict to keep would cost more than that)."""
    from interpreter.ruleset import limits
    from interpreter.ruleset.merge import Folded

    variant = Path(__file__).resolve().parents[2] / "rulesets" / "examples" / "strict_procurement"
    built = load_ruleset(variant)
    rows = sum(len(r.doc["rows"]) for r in built.rules.values()
               if isinstance(r.positions, Folded) and isinstance(r.doc.get("rows"), list))
    assert rows > 0
    def entries() -> list[Path]:  # the rulesets kept (not the expressions' or the options')
        return [p for p in cache.glob("*.bin") if len(p.stem) == 64]

    for entry in entries():
        entry.unlink()
    monkeypatch.setattr(limits, "MAX_CACHED_FOLDED_ROWS", rows - 1 if past else rows)
    first = load_ruleset(variant)
    assert bool(entries()) is not past
    again = load_ruleset(variant)
    assert again.rules.keys() == first.rules.keys()


@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "past it"])
def test_a_ruleset_of_more_values_than_the_bound_is_not_cached(cache, monkeypatch, past):
    """Past ``MAX_CACHED_VALUES`` values read from its files, a ruleset is read again by each
    command (its entry would cost memory beside the ruleset's own: two of them in a diff)."""
    from interpreter.ruleset import limits

    built = load_ruleset(None)
    values = built.values_read
    assert values > 1000

    def entries() -> list[Path]:  # the rulesets kept (not the expressions' or the options')
        return [p for p in cache.glob("*.bin") if len(p.stem) == 64]

    for entry in entries():
        entry.unlink()
    monkeypatch.setattr(limits, "MAX_CACHED_VALUES", values - 1 if past else values)
    load_ruleset(None)
    assert bool(entries()) is not past
