"""``prob RULE`` and ``prob EXPR`` keep what they wrote (``interpreter.reports.kept_output``): for
a table of invocations the output, the errors and the exit code are the same with the cache off,
cold and warm, and a warm run computes nothing; an edit of the ``--input`` file or of a rule file
is seen on the next run; an error, ``--svg`` and standard input are never kept."""
from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.engine import runner
from interpreter.reports import kept_output
from rules_dsl import prob as rules_prob

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "rulesets" / "magipunk"
INPUT = "intellect: 12\nitem: {materials: [鋼], quality: 傑作}\n"

# (name, argv with {input} and {tmp} filled in, kept)
CASES = [
    ("a roll table", ["prob", "cohabitation.leisure.city"], True),
    ("a roll table in Japanese, as JSON", ["--lang", "ja", "prob", "cohabitation.leisure.city", "--format", "json"], True),
    ("a check with --var", ["prob", "procurement.check", "--var", "intellect=12", "--var",
                            "item={materials: [鋼], quality: 傑作}"], True),
    ("a check with --input", ["prob", "procurement.check", "--input", "{input}"], True),
    ("an expression", ["prob", "2d6 >= 7"], True),
    ("an expression with --var", ["prob", "x + d6", "--var", "x=3"], True),
    ("an unknown rule", ["prob", "no.such_rule"], False),
    ("a wrong input", ["prob", "procurement.check", "--var", "intellect=x", "--var",
                       "item={materials: [鋼], quality: 傑作}"], False),
    ("an expression with an error", ["prob", "2d6 >="], False),
    ("a missing input file", ["prob", "procurement.check", "--input", "{tmp}/nowhere.yaml"], False),
    ("with a chart", ["prob", "2d6", "--svg", "{tmp}/chart.svg"], False),
]


class _Made:
    """Counts the distributions computed (not taken from the cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for module in (runner, rules_prob):
            made = module.distribution

            def counted(*args, _made=made, **kwargs):
                self.count += 1
                return _made(*args, **kwargs)

            monkeypatch.setattr(module, "distribution", counted)


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MPRULES_CACHE_DIR", str(folder))
    monkeypatch.delenv("MPRULES_NO_CACHE", raising=False)
    return folder


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"*{kept_output.SUFFIX}"))


@pytest.mark.parametrize("name,argv,kept", CASES, ids=[c[0] for c in CASES])
def test_the_same_with_the_cache_off_cold_and_warm(name: str, argv: list[str], kept: bool, tmp_path: Path,
                                                   cache: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "in.yaml").write_text(INPUT, encoding="utf-8")
    argv = [a.replace("{input}", str(tmp_path / "in.yaml")).replace("{tmp}", str(tmp_path)) for a in argv]
    monkeypatch.chdir(BASE)
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        without = _run(argv, capsys)
    made = _Made(monkeypatch)
    cold = _run(argv, capsys)
    computed = made.count
    warm = _run(argv, capsys)
    assert without == cold == warm
    assert len(_entries(cache)) == kept
    if kept:
        assert without[0] == 0 and without[1] and computed and made.count == computed  # warm: nothing computed


def test_an_edit_of_the_input_or_of_a_rule_file_is_seen(tmp_path: Path, cache: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(BASE, rules)
    given = tmp_path / "in.yaml"
    given.write_text(INPUT, encoding="utf-8")
    argv = ["prob", "procurement.check", "--ruleset", str(rules), "--input", str(given), "--format", "json"]
    first = _run(argv, capsys)
    assert first[0] == 0 and _run(argv, capsys) == first
    given.write_text(INPUT.replace("12", "2"), encoding="utf-8")  # the same size: seen by its content
    second = _run(argv, capsys)
    assert second[0] == 0 and second != first
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        assert _run(argv, capsys) == second
    procurement = rules / "procurement.yaml"
    text = procurement.read_text(encoding="utf-8")
    procurement.write_text(text + "\n# edited\n", encoding="utf-8")
    assert _run(argv, capsys) == second  # made again from the edited file: the same odds
    (rules / "ruleset.yaml").unlink()
    gone = _run(argv, capsys)
    assert gone[0] != 0  # no ruleset any more: never the kept text


def test_standard_input_is_never_kept(cache: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BASE)
    outs = []
    for text in (INPUT, INPUT.replace("12", "2")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))
        outs.append(_run(["prob", "procurement.check", "--input", "-"], capsys))
    assert outs[0][0] == outs[1][0] == 0 and outs[0][1] != outs[1][1]
    assert _entries(cache) == []


@pytest.mark.parametrize("bound,kept", [
    (lambda text: len(text) - 1, False),  # fewer characters than the output: no copy kept at all
    (lambda text: len(text.encode("utf-8")) - 1, False),  # the characters fit, the bytes do not
    (lambda text: len(text.encode("utf-8")), True),  # at the bound: kept
], ids=["past it in characters", "past it in bytes", "at the bound"])
def test_an_output_past_the_kept_bound_is_written_whole_and_not_kept(bound, kept: bool, cache: Path,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The text is written as it is made: past ``MAX_KEPT_OUTPUT_BYTES`` it is the same text, and
    nothing is kept (and the next run computes it again)."""
    from interpreter.reports import limits

    monkeypatch.chdir(BASE)
    argv = ["--lang", "ja", "prob", "cohabitation.leisure.city"]
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        without = _run(argv, capsys)
    assert without[0] == 0 and not without[1].isascii()
    monkeypatch.setattr(limits, "MAX_KEPT_OUTPUT_BYTES", bound(without[1]))
    assert _run(argv, capsys) == without
    assert len(_entries(cache)) == kept
    made = _Made(monkeypatch)
    assert _run(argv, capsys) == without
    assert made.count == (0 if kept else 1)
