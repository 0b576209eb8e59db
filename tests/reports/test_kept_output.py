"""What diff and doc write, kept in the cache (``interpreter.reports.kept_output``): for a table of
invocations (every format and option, both languages, variants, error cases) the output, the
errors, the exit code and any file written are the same with the cache off, on the first (cold)
run and on the next (warm) one; a warm run makes nothing; an edit of any file of either extends
graph, or of a schema, is seen on the next run; a damaged, foreign or unwritable cache is ignored;
errors are never kept; the limits hold."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.reports import diff as diff_report
from interpreter.reports import handout as handout_report
from interpreter.reports import kept_output, limits

ROOT = Path(__file__).resolve().parents[2]
RULESETS = ROOT / "rulesets"
BASE = str(RULESETS / "magipunk")
EXAMPLES = RULESETS / "examples"
BROKEN = ROOT / "tests" / "broken"

# (name, argv with {base}, {examples}, {broken}, {tmp} filled in, a file the command writes or None)
CASES = [
    ("diff text en", ["diff", "{base}", "{examples}/strict_procurement"], None),
    ("diff text ja", ["--lang", "ja", "diff", "{base}", "{examples}/strict_procurement"], None),
    ("diff json", ["diff", "{base}", "{examples}/strict_procurement", "--format", "json"], None),
    ("diff json ja", ["diff", "{base}", "{examples}/safer_city", "--format", "json", "--lang", "ja"], None),
    ("diff markdown", ["diff", "{base}", "{examples}/long_rest_sleep", "--format", "markdown"], None),
    ("diff markdown ja", ["--lang=ja", "diff", "{base}", "{examples}/briefing_options", "--format=markdown"],
     None),
    ("diff house rule against a variant", ["diff", "{examples}/house_rules/nap_rest", "{examples}/safer_city"],
     None),
    ("diff the same ruleset", ["diff", "{base}", "{base}"], None),
    ("diff lone rule files", ["diff", "{base}/procurement.yaml", "{base}/procurement.yaml"], None),
    ("diff spelled otherwise", ["diff", "{base}/", "{examples}/../examples/strict_procurement"], None),
    ("doc", ["doc", "{base}"], None),
    ("doc bundled", ["doc"], None),
    ("doc gm", ["doc", "{examples}/strict_procurement", "--gm"], None),
    ("doc html", ["doc", "{examples}/strict_procurement", "--html"], None),
    ("doc html gm en", ["--lang", "en", "doc", "{examples}/safer_city", "--html", "--gm"], None),
    ("doc base", ["doc", "{examples}/safer_city", "--base", "{examples}/long_rest_sleep"], None),
    ("doc lone rule file", ["doc", "{base}/rest.yaml"], None),
    ("doc to a file", ["doc", "{examples}/strict_procurement", "-o", "{tmp}/handout.md"], "handout.md"),
    ("doc html to a file", ["doc", "{base}", "--html", "--output", "{tmp}/handout.html"], "handout.html"),
    ("diff missing variant", ["diff", "{base}", "{tmp}/nowhere"], None),
    ("diff not a ruleset", ["diff", "{base}", "{broken}"], None),
    ("diff broken ruleset", ["diff", "{base}", "{broken}/semantic/duplicate_id"], None),
    ("diff broken ruleset ja", ["--lang", "ja", "diff", "{broken}/semantic/extends_cycle", "{base}"], None),
    ("doc broken ruleset", ["doc", "{broken}/semantic/duplicate_id"], None),
    ("doc onto a file it reads", ["doc", "{base}", "-o", "{base}/rest.yaml"], None),
    ("doc onto a directory", ["doc", "{base}", "-o", "{tmp}"], None),
    ("diff bad format", ["diff", "{base}", "{base}", "--format", "html"], None),
]
ERRORS = {"diff missing variant", "diff not a ruleset", "diff broken ruleset", "diff broken ruleset ja",
          "doc broken ruleset", "doc onto a file it reads", "doc onto a directory", "diff bad format"}
# refused after the handout was made: the handout is kept, the place to write it checked each time
REFUSED_PLACE = {"doc onto a file it reads"}


def _argv(argv: list[str], tmp: Path) -> list[str]:
    return [a.format(base=BASE, examples=EXAMPLES, broken=BROKEN, tmp=tmp) for a in argv]


class _Made:
    """Counts the outputs made (not taken from the cache) by diff and doc."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        compare, handout_made = diff_report.compare, handout_report.handout_made

        def counted_compare(*args, **kwargs):
            self.count += 1
            return compare(*args, **kwargs)

        def counted_handout(*args, **kwargs):
            self.count += 1
            return handout_made(*args, **kwargs)

        monkeypatch.setattr(diff_report, "compare", counted_compare)
        monkeypatch.setattr(handout_report, "handout_made", counted_handout)


def _run(argv: list[str], capsys, written: Path | None) -> tuple[int, str, str, bytes | None]:
    if written is not None and written.exists():
        written.unlink()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err, written.read_bytes() if written is not None and written.exists() else None


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"*{kept_output.SUFFIX}"))


@pytest.fixture()
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MPRULES_CACHE_DIR", str(folder))
    monkeypatch.delenv("MPRULES_NO_CACHE", raising=False)
    return folder


@pytest.mark.parametrize("name, argv, written", CASES, ids=[c[0] for c in CASES])
def test_the_same_with_the_cache_off_cold_and_warm(name, argv, written, tmp_path, cache, capsys, monkeypatch):
    argv = _argv(argv, tmp_path)
    target = tmp_path / written if written else None
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        without = _run(argv, capsys, target)
    assert not _entries(cache)
    made = _Made(monkeypatch)
    cold = _run(argv, capsys, target)
    warm = _run(argv, capsys, target)
    assert without == cold == warm
    if name in ERRORS:
        assert without[0] != 0 and len(_entries(cache)) == (name in REFUSED_PLACE)  # no error is kept
    else:
        assert without[0] == 0 and without[1 if target is None else 3]
        assert made.count == 1 and len(_entries(cache)) == 1  # the warm run made nothing


def _graph(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the bundled ruleset and of a variant that extends that copy."""
    base, variant = tmp_path / "graph" / "base", tmp_path / "graph" / "variant"
    shutil.copytree(BASE, base)
    shutil.copytree(EXAMPLES / "strict_procurement", variant)
    manifest = variant / "ruleset.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("extends: magipunk", "extends: ../base"),
                        encoding="utf-8")
    return base, variant


GRAPH_COMMANDS = [
    ["diff", "{base}", "{variant}"],
    ["diff", "{base}", "{variant}", "--format", "json"],
    ["doc", "{variant}", "--gm"],
]


def _graph_files(tmp_path: Path) -> list[str]:
    base, variant = _graph(tmp_path)
    files = sorted(str(p.relative_to(tmp_path / "graph")) for p in (*base.glob("*.yaml"), *variant.glob("*.yaml")))
    shutil.rmtree(tmp_path / "graph")
    return files


@pytest.mark.parametrize("command", GRAPH_COMMANDS, ids=[" ".join(c[:1] + c[3:]) for c in GRAPH_COMMANDS])
def test_an_edit_of_any_file_of_either_graph_is_seen(command, tmp_path, cache, capsys, monkeypatch):
    base, variant = _graph(tmp_path)
    argv = [a.format(base=base, variant=variant) for a in command]
    made = _Made(monkeypatch)
    first = _run(argv, capsys, None)
    assert first[0] == 0 and made.count == 1
    files = sorted((*base.glob("*.yaml"), *variant.glob("*.yaml")))
    assert len(files) >= 10
    for index, path in enumerate(files):
        text = path.read_text(encoding="utf-8")
        path.write_text(text + f"# edited {index}\n", encoding="utf-8")  # the same rules: the same output
        again = _run(argv, capsys, None)
        assert again == first and made.count == index + 2, path.name  # made again, not taken as kept
    assert _run(argv, capsys, None) == first and made.count == len(files) + 1  # now kept again


def test_an_edit_that_changes_the_output_shows_on_the_next_run(tmp_path, cache, capsys, monkeypatch):
    base, variant = _graph(tmp_path)
    argv = ["diff", str(base), str(variant)]
    before = _run(argv, capsys, None)
    assert "time_dice_cap: 2 -> 1" in before[1]
    manifest = variant / "ruleset.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert "time_dice_cap: 1" in text
    stat = manifest.stat()
    manifest.write_text(text.replace("time_dice_cap: 1", "time_dice_cap: 0"), encoding="utf-8")
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time: by its hash
    after = _run(argv, capsys, None)
    assert "time_dice_cap: 2 -> 0" in after[1]
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        assert _run(argv, capsys, None) == after
    assert _run(argv, capsys, None) == after


def test_a_rule_file_added_to_a_ruleset_is_seen(tmp_path, cache, capsys, monkeypatch):
    base, variant = _graph(tmp_path)
    argv = ["diff", str(base), str(variant), "--format", "json"]
    before = json.loads(_run(argv, capsys, None)[1])
    assert before["rules"]["added"] == []
    shutil.copyfile(EXAMPLES / "house_rules" / "nap_rest" / "nap.yaml", variant / "nap.yaml")
    after = _run(argv, capsys, None)
    assert [r["rule"] for r in json.loads(after[1])["rules"]["added"]] == ["rest.nap"]
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        assert _run(argv, capsys, None) == after
    (variant / "nap.yaml").unlink()
    assert json.loads(_run(argv, capsys, None)[1]) == before


def test_an_edit_of_a_schema_is_seen(tmp_path, cache, capsys, monkeypatch):
    from interpreter.documents import resources

    schemas = tmp_path / "schemas"
    shutil.copytree(resources.schemas_dir(), schemas)
    monkeypatch.setattr(resources, "schemas_dir", lambda: schemas)
    made = _Made(monkeypatch)
    argv = ["doc", BASE]
    first = _run(argv, capsys, None)
    assert _run(argv, capsys, None) == first and made.count == 1
    for index, schema in enumerate(sorted(schemas.rglob("*.json"))[:3]):
        schema.write_text(schema.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert _run(argv, capsys, None) == first and made.count == index + 2, schema.name


DAMAGE = {
    "one byte flipped": lambda p: p.write_bytes(p.read_bytes()[:-1] + bytes([p.read_bytes()[-1] ^ 1])),
    "cut short": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "empty": lambda p: p.write_bytes(b""),
    "another format": lambda p: p.write_bytes(b"MPRC6" + p.read_bytes()[5:]),
    "garbage": lambda p: p.write_bytes(os.urandom(4096)),
    "a directory": lambda p: (p.unlink(), p.mkdir()),
    "another key": None,  # the entry of another command under this one's name
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_or_foreign_entry_is_ignored(damage, tmp_path, cache, capsys, monkeypatch):
    argv = ["diff", BASE, str(EXAMPLES / "strict_procurement")]
    first = _run(argv, capsys, None)
    [entry] = _entries(cache)
    if DAMAGE[damage] is None:
        other = ["doc", BASE]
        _run(other, capsys, None)
        [foreign] = [e for e in _entries(cache) if e != entry]
        shutil.copyfile(foreign, entry)
    else:
        DAMAGE[damage](entry)
    made = _Made(monkeypatch)
    assert _run(argv, capsys, None) == first and made.count == 1
    if damage != "a directory":
        assert _run(argv, capsys, None) == first and made.count == 1  # written sound again


@pytest.mark.parametrize("where", ["a file", "a folder that cannot be written"])
def test_an_unwritable_cache_is_no_cache(where, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "cache"
    if where == "a file":
        folder.write_text("not a folder", encoding="utf-8")
    else:
        folder.mkdir()
        folder.chmod(0o500)
    monkeypatch.setenv("MPRULES_CACHE_DIR", str(folder))
    argv = ["doc", str(EXAMPLES / "strict_procurement")]
    try:
        with monkeypatch.context() as off:
            off.setenv("MPRULES_NO_CACHE", "1")
            without = _run(argv, capsys, None)
        assert _run(argv, capsys, None) == without == _run(argv, capsys, None)
        assert without[0] == 0 and not without[2]
    finally:
        if folder.is_dir():
            folder.chmod(0o700)


@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "past the bound"])
def test_kept_output_bytes_at_and_past_the_bound(past, cache, capsys, monkeypatch):
    argv = ["diff", BASE, str(EXAMPLES / "strict_procurement"), "--lang", "ja"]
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        without = _run(argv, capsys, None)
    size = len(without[1].encode("utf-8"))
    monkeypatch.setattr(limits, "MAX_KEPT_OUTPUT_BYTES", size - 1 if past else size)
    assert _run(argv, capsys, None) == without
    assert len(_entries(cache)) == (0 if past else 1)
    assert _run(argv, capsys, None) == without


def test_kept_outputs_at_and_past_the_bound(cache, capsys, monkeypatch):
    monkeypatch.setattr(limits, "MAX_KEPT_OUTPUTS", 3)
    made = _Made(monkeypatch)
    commands = [["diff", BASE, BASE, "--format", fmt] for fmt in ("text", "json", "markdown")]
    commands += [["diff", BASE, BASE, "--format", "json", "--lang", "ja"], ["doc", BASE, "--lang", "en"]]
    for count, argv in enumerate(commands, 1):
        _run(argv, capsys, None)
        assert len(_entries(cache)) == min(count, 3)
    assert made.count == 5
    for argv in commands[-3:]:  # the newest are kept
        _run(argv, capsys, None)
    assert made.count == 5
    _run(commands[0], capsys, None)  # the oldest was dropped
    assert made.count == 6 and len(_entries(cache)) == 3


def test_a_kind_of_another_package_is_not_kept(cache, capsys, monkeypatch):
    from rules_dsl.frozen import replace
    from interpreter.engine import registry

    get = registry.get

    def foreign(name):
        kind = get(name)
        if kind is None:
            return None
        return replace(kind, run=lambda *a, **k: kind.run(*a, **k))  # a function of this test module

    argv = ["diff", BASE, BASE, "--format", "json"]
    monkeypatch.setattr(registry, "get", foreign)
    first = _run(argv, capsys, None)
    assert first[0] == 0 and not _entries(cache)


def test_a_file_changed_while_the_command_ran_is_not_kept(tmp_path, cache, capsys, monkeypatch):
    base, variant = _graph(tmp_path)
    argv = ["diff", str(base), str(variant)]
    compare = diff_report.compare

    def editing(*args, **kwargs):
        found = compare(*args, **kwargs)
        path = variant / "ruleset.yaml"
        path.write_text(path.read_text(encoding="utf-8") + "# changed meanwhile\n", encoding="utf-8")
        return found

    monkeypatch.setattr(diff_report, "compare", editing)
    assert _run(argv, capsys, None)[0] == 0
    assert not _entries(cache)


WARM_IMPORTS = """
import sys
from interpreter.cli import main
code = main(sys.argv[1:])
print(" ".join(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""
NEVER_WARM = ["yaml", "jsonschema", "referencing", "lark", "json", "pickle", "dataclasses", "typing",
              "interpreter.ruleset.model", "interpreter.reports.diff", "interpreter.reports.handout",
              "interpreter.checks.loading", "interpreter.ruleset.cache", "interpreter.engine.registry"]


@pytest.mark.parametrize("argv", [["diff", BASE, str(EXAMPLES / "strict_procurement")], ["doc", BASE, "--html"]],
                         ids=["diff", "doc"])
def test_a_warm_command_imports_nothing_that_makes_the_output(argv, cache):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MPRULES_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", WARM_IMPORTS, *argv], capture_output=True, text=True,
                           env=env, cwd=ROOT, check=False) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0] and runs[0].stdout == runs[1].stdout
    cold, warm = (set(r.stderr.split()) for r in runs)
    assert "interpreter.reports.diff" in cold
    assert not warm & set(NEVER_WARM), sorted(warm & set(NEVER_WARM))


SEEDED = [["diff", BASE, str(EXAMPLES / "safer_city"), "--format", "json"],
          ["doc", str(EXAMPLES / "strict_procurement"), "--gm", "--html"]]


@pytest.mark.slow
@pytest.mark.parametrize("argv", SEEDED, ids=["diff", "doc"])
def test_the_output_depends_on_no_hash_seed(argv):
    """What is kept must be what any run would write: the output of two processes with other
    hash seeds (the order of sets and of dicts built from them) is the same, with no cache."""
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed, "MPRULES_NO_CACHE": "1"}
        done = subprocess.run([sys.executable, "-m", "interpreter", *argv], capture_output=True, env=env,
                              cwd=ROOT, check=False)
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0] == outputs[1] and outputs[0][0] == 0 and outputs[0][1]
