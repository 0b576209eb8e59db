"""Limits (each layer's ``limits.py``) that no other test file checks at and past their bound (the table
of docs/limits.md names the test of every limit): exact distributions, file sizes, the core
check, sleep hours and variant layers. Bounds too costly to reach for real (5 million pairs,
256 MB) are checked past the real bound and, at the bound, with the limit lowered to the exact
amount of work one computation needs."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from campaign_support import make_campaign  # noqa: E402

import interpreter.campaign.limits  # noqa: E402
import interpreter.documents.limits  # noqa: E402
import interpreter.reports.limits  # noqa: E402
import interpreter.ruleset.limits  # noqa: E402
import interpreter.solvers.limits  # noqa: E402
import rules_dsl.limits  # noqa: E402
from rules_dsl import compile_expression, distribution as distribution_module  # noqa: E402
from rules_dsl import prob as prob_module  # noqa: E402
from rules_dsl.distribution import Distribution  # noqa: E402
from rules_dsl.errors import MprError  # noqa: E402

# Each limit lives with the layer it bounds; docs/limits.md lists them all in one table.
LIMIT_MODULES = (rules_dsl.limits, interpreter.documents.limits, interpreter.ruleset.limits,
                 interpreter.solvers.limits, interpreter.reports.limits, interpreter.campaign.limits)
limits = SimpleNamespace(**{name: value for module in LIMIT_MODULES
                            for name, value in vars(module).items() if name.isupper()})


def refused(call, *args, **kwargs) -> MprError:
    with pytest.raises(MprError) as caught:
        call(*args, **kwargs)
    return caught.value


# -- exact distributions ----------------------------------------------------------------------------

def test_distribution_size_at_and_past_the_bound() -> None:
    n = limits.MAX_DISTRIBUTION_SIZE
    assert len(Distribution({i: Fraction(1, n) for i in range(n)})) == n
    assert refused(Distribution, {i: Fraction(1, n + 1) for i in range(n + 1)}).code == "MPR160"


def test_distribution_work_at_and_past_the_bound(monkeypatch) -> None:
    side = int(limits.MAX_DISTRIBUTION_WORK ** 0.5) + 1  # side * side > the real limit
    big = Distribution({i: Fraction(1, side) for i in range(side)})
    assert refused(big.combine, big, lambda x, y: x + y).code == "MPR160"
    monkeypatch.setattr(distribution_module, "MAX_DISTRIBUTION_WORK", 12 * 12)
    d12, d13 = Distribution.die(12), Distribution.die(13)
    assert len(d12.combine(d12, lambda x, y: x + y)) == 23
    assert refused(d12.combine, d13, lambda x, y: x + y).code == "MPR160"


def test_prob_work_at_and_past_the_bound(monkeypatch) -> None:
    """The work is estimated from the sizes of the supports before any is spent: the estimate is
    never below the work really done, the bound accepts it and one less refuses it at once."""
    expression = compile_expression("d100 * d100 + d6")
    charged: list[int] = []
    charge = prob_module._Prob._charge

    def counting(self, pairs: int) -> None:
        charge(self, pairs)
        charged.append(self.work)

    monkeypatch.setattr(prob_module._Prob, "_charge", counting)
    expression.distribution({})
    estimate = prob_module.estimated_work(expression.ast, prob_module.random_nodes(expression.ast))
    assert charged[-1] <= estimate
    monkeypatch.setattr(prob_module, "MAX_PROB_WORK", estimate)
    assert expression.distribution({}).total() == 1
    monkeypatch.setattr(prob_module, "MAX_PROB_WORK", estimate - 1)
    charged.clear()
    assert refused(expression.distribution, {}).code == "MPR160"
    assert charged == []
    monkeypatch.undo()
    assert refused(compile_expression("d1000 * d1000 * d1000").distribution, {}).code == "MPR160"


# -- files --------------------------------------------------------------------------------------------

def _sized(path: Path, size: int, head: str = "a: 1\n") -> Path:
    path.write_text(head + "#" * (size - len(head) - 1) + "\n", encoding="utf-8")
    assert path.stat().st_size == size
    return path


def test_rule_file_size_at_and_past_the_bound(tmp_path: Path) -> None:
    from interpreter.documents.loader import load_file

    n = limits.MAX_RULE_FILE_BYTES
    assert load_file(_sized(tmp_path / "at.yaml", n))[0].data == {"a": 1}
    error = refused(load_file, _sized(tmp_path / "past.yaml", n + 1))
    assert (error.code, error.loc.line) == ("MPR201", 1)


def test_input_file_size_at_and_past_the_bound(tmp_path: Path) -> None:
    from interpreter.cli._expr import load_input
    from interpreter.cli.run import read_input

    n = limits.MAX_INPUT_FILE_BYTES
    at, past = _sized(tmp_path / "at.yaml", n), _sized(tmp_path / "past.yaml", n + 1)
    assert read_input(str(at))[0] == {"a": 1} and load_input(str(at)) == {"a": 1}
    assert refused(read_input, str(past)).code == "MPR201"
    assert refused(load_input, str(past)).code == "MPR014"


def test_characters_file_size_at_and_past_the_bound(tmp_path: Path) -> None:
    from interpreter.campaign.characters import load_roster

    n = limits.MAX_INPUT_FILE_BYTES
    head = "characters: [{id: a, hand_size: 1}]\n"
    at, past = _sized(tmp_path / "at.yaml", n, head), _sized(tmp_path / "past.yaml", n + 1, head)
    assert [seat.holder for seat in load_roster(str(at)).seats][:1] == ["a"]
    assert refused(load_roster, str(past)).code == "MPR201"


@pytest.mark.parametrize("holder", ["character", "item"])
def test_id_length_at_and_past_the_bound(holder: str, tmp_path: Path) -> None:
    from interpreter.campaign.characters import load_roster
    from interpreter.campaign.limits import MAX_ID_LENGTH

    def roster(name: str, length: int) -> str:
        ident = "あ" * length  # characters, not bytes
        entry = (f"{{id: {ident}, hand_size: 1}}" if holder == "character" else
                 f"{{id: c, hand_size: 1, items: [{{id: {ident}, held_size: 1}}]}}")
        path = tmp_path / name
        path.write_text(f"characters: [{entry}]\n", encoding="utf-8")
        return str(path)

    assert load_roster(roster("at.yaml", MAX_ID_LENGTH)).seats
    error = refused(load_roster, roster("past.yaml", MAX_ID_LENGTH + 1))
    assert error.code == "MPR640" and "1-64" in error.message("en")


def test_campaign_file_size_at_and_past_the_bound(tmp_path: Path, monkeypatch, capsys) -> None:
    """Commands write until the next one would cross the limit: that one is refused (MPR689) and
    changes nothing; the file stays within the limit, and reading and exporting still work, also
    of a file already past it."""
    import sqlite3

    from interpreter.campaign import files as store
    from interpreter.campaign.store import Store
    from interpreter.cli import main

    def dump(path: str) -> dict:
        with Store.open(path, readonly=True) as campaign:
            return campaign.load().dump()

    path = make_campaign(tmp_path)
    page = sqlite3.connect(path).execute("PRAGMA page_size").fetchone()[0]
    monkeypatch.setattr(store, "MAX_CAMPAIGN_FILE_BYTES", Path(path).stat().st_size + 3 * page)
    statuses = []
    for n in range(200):
        before = dump(path)
        log = sqlite3.connect(path).execute("SELECT count(*) FROM journal").fetchone()[0]
        statuses.append(main(["campaign", "advance", path, "--minutes", "1", "--seed", str(n)]))
        if statuses[-1]:
            break
    err = capsys.readouterr().err
    assert statuses[-1] == 3 and statuses[:-1] == [0] * (len(statuses) - 1) and len(statuses) > 1, err
    assert err.strip().splitlines()[-1].split()[1] == "MPR689", err
    assert dump(path) == before
    assert sqlite3.connect(path).execute("SELECT count(*) FROM journal").fetchone()[0] == log
    assert Path(path).stat().st_size <= store.MAX_CAMPAIGN_FILE_BYTES
    for verb in ("show", "log", "export", "check"):
        assert main(["campaign", verb, path]) == 0, verb
    # a file already past the limit: read and exported, never written
    monkeypatch.setattr(store, "MAX_CAMPAIGN_FILE_BYTES", Path(path).stat().st_size - 1)
    for verb in ("show", "log", "export", "check"):
        assert main(["campaign", verb, path]) == 0, verb
    capsys.readouterr()
    assert main(["campaign", "undo", path]) == 3 and "MPR689" in capsys.readouterr().err
    assert dump(path) == before


@pytest.mark.parametrize("at, past", [
    (f"{limits.MAX_CHECK_DICE}MP15", f"{limits.MAX_CHECK_DICE + 1}MP15"),
    (f"1MP{limits.MAX_CHECK_NUMBER}", f"1MP{limits.MAX_CHECK_NUMBER + 1}"),
    (f"1MP15C{limits.MAX_CHECK_NUMBER}", f"1MP15C{limits.MAX_CHECK_NUMBER + 1}"),
])
def test_core_check_at_and_past_the_bound(at: str, past: str) -> None:
    from interpreter.solvers import pool_notation as core_check

    core_check.success_probability(core_check.parse_notation(at))
    assert refused(core_check.parse_notation, past).code == "MPR011"


def test_sleep_hours_at_and_past_the_bound(tmp_path: Path) -> None:
    from interpreter.campaign import commands
    from interpreter.campaign.store import Store

    path = make_campaign(tmp_path)
    with Store.open(path) as campaign:
        error = refused(commands.sleep, campaign, "alice", limits.MAX_SLEEP_HOURS + 1, seed=1)
        assert error.loc.path and error.exit_code in (1, 2)
        commands.sleep(campaign, "alice", limits.MAX_SLEEP_HOURS, seed=1)


def _chain(root: Path, layers: int) -> Path:
    for n in range(layers):
        folder = root / f"l{n}"
        folder.mkdir(parents=True)
        extends = f"extends: ../l{n - 1}\n" if n else "parameters:\n  clock: {dawn: '06:00'}\n"
        (folder / "ruleset.yaml").write_text(
            f'id: l{n}\nversion: "1.0.0"\ntitle: {{en: l{n}}}\n{extends}', encoding="utf-8")
    return root / f"l{layers - 1}"


def test_variant_layers_at_and_past_the_bound(tmp_path: Path) -> None:
    from interpreter.checks.loading import collect

    n = limits.MAX_VARIANT_LAYERS
    _, findings = collect(_chain(tmp_path / "at", n), "en")
    assert not [d for d in findings if d.code == "MPR909"]
    _, findings = collect(_chain(tmp_path / "past", n + 1), "en")
    errors = [d for d in findings if d.severity == "error"]
    assert [d.code for d in errors][:1] == ["MPR909"]
    assert errors[0].file and errors[0].file.endswith("ruleset.yaml") and errors[0].line  # located


def test_ruleset_bytes_at_and_past_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file of one extends graph counts against MAX_RULESET_BYTES, before it is read: at the
    bound the bundled ruleset loads; one byte under it, the file that passes it is MPR924 (and
    nothing more is read)."""
    from interpreter.checks import loading
    from interpreter.documents.resources import bundled_ruleset

    root = bundled_ruleset()
    total = sum(p.stat().st_size for p in [root / "ruleset.yaml", *loading.rule_files(root)])
    monkeypatch.setattr(loading, "MAX_RULESET_BYTES", total)
    _, findings = loading.collect(root, "en")
    assert not [d for d in findings if d.code == "MPR924"]
    monkeypatch.setattr(loading, "MAX_RULESET_BYTES", total - 1)
    _, findings = loading.collect(root, "en")
    [refusal] = [d for d in findings if d.code == "MPR924"]
    assert refusal.severity == "error" and refusal.file and refusal.file.endswith(".yaml")


def _bundled_counts() -> tuple[int, int]:
    """The values and the documents of every file of the bundled ruleset."""
    from interpreter.checks import loading
    from interpreter.documents.loader import load_file
    from interpreter.documents.resources import bundled_ruleset

    root = bundled_ruleset()
    docs = [d for p in [root / "ruleset.yaml", *loading.rule_files(root)] for d in load_file(p)]
    return sum(d.cost for d in docs), len(docs)


@pytest.mark.parametrize("sharing", [True, False])
def test_ruleset_values_at_and_past_the_bound(monkeypatch: pytest.MonkeyPatch, sharing: bool) -> None:
    """The values of every file of one extends graph count against MAX_RULESET_NODES as each file
    is read: at the bound the bundled ruleset loads; one value less and the file that passes it
    is MPR970, located at the value that passes it, and nothing more is read (with the per-process
    sharing of files on, where a file read before is read again to find that value, and off)."""
    from interpreter.checks import loading
    from interpreter.documents import shared
    from interpreter.documents.resources import bundled_ruleset

    values, _ = _bundled_counts()
    monkeypatch.setattr(shared, "_on", sharing)
    shared.clear()
    monkeypatch.setattr(loading, "MAX_RULESET_NODES", values)
    _, findings = loading.collect(bundled_ruleset(), "en")
    assert not [d for d in findings if d.code == "MPR970"]
    monkeypatch.setattr(loading, "MAX_RULESET_NODES", values - 1)
    _, findings = loading.collect(bundled_ruleset(), "en")
    [refusal] = [d for d in findings if d.code == "MPR970"]
    assert refusal.severity == "error" and refusal.file and refusal.file.endswith(".yaml")
    assert refusal.line and refusal.column and str(values - 1) in refusal.message
    shared.clear()


def test_ruleset_documents_at_and_past_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """The documents (rules) of one extends graph count against MAX_RULESET_DOCUMENTS: at the
    bound the bundled ruleset loads; one less and the file that passes it is MPR971 (not used,
    and nothing more is read)."""
    from interpreter.checks import loading
    from interpreter.documents.resources import bundled_ruleset

    _, documents = _bundled_counts()
    monkeypatch.setattr(loading, "MAX_RULESET_DOCUMENTS", documents)
    _, findings = loading.collect(bundled_ruleset(), "en")
    assert not [d for d in findings if d.code == "MPR971"]
    monkeypatch.setattr(loading, "MAX_RULESET_DOCUMENTS", documents - 1)
    _, findings = loading.collect(bundled_ruleset(), "en")
    [refusal] = [d for d in findings if d.code == "MPR971"]
    assert refusal.severity == "error" and refusal.file and refusal.file.endswith(".yaml")
    assert f"{documents - 1}" in refusal.message


@pytest.mark.parametrize("text", ["+d91 -d926 +7d926 +71 +-+1 +-+ 1+ 1", "d1000 * d1000 * d1000"])
def test_a_distribution_past_its_limits_is_located(text: str) -> None:
    """Found by fuzz/fuzz_expression.py: the limits of a whole computation had no location."""
    from rules_dsl.errors import Location

    error = refused(compile_expression(text, origin=Location("r.yaml", 4, 11)).distribution, {})
    assert (error.code, error.loc.file, error.loc.line, error.loc.column) == ("MPR160", "r.yaml", 4, 11)
    error = refused(compile_expression(text).distribution, {})
    assert (error.loc.line, error.loc.column) == (1, 1)


def test_dice_per_evaluation_at_the_bound() -> None:
    from rules_dsl.dice import SeededDice

    terms = limits.MAX_DICE_PER_EVALUATION // limits.MAX_DICE_PER_TERM
    at = " + ".join([f"{limits.MAX_DICE_PER_TERM}d6"] * terms)
    assert compile_expression(at).evaluate({}, SeededDice(1)) >= limits.MAX_DICE_PER_EVALUATION
    assert refused(compile_expression(at + " + d6").evaluate, {}, SeededDice(1)).code == "MPR153"


def test_exponent_string_and_list_at_and_past_the_bound() -> None:
    n, s, k = limits.MAX_EXPONENT, limits.MAX_STRING_LENGTH, limits.MAX_LIST_LENGTH
    assert compile_expression(f"2 ** {n}").evaluate({}) == 2 ** n
    assert refused(compile_expression(f"2 ** {n + 1}").evaluate, {}).code == "MPR144"
    half = {"s": "鋼" * (s // 2), "l": [0] * (k // 2)}
    assert len(compile_expression("s + s").evaluate(half)) == s
    assert len(compile_expression("l + l").evaluate(half)) == k
    assert refused(compile_expression("s + s + 'x'").evaluate, half).code == "MPR149"
    assert refused(compile_expression("l + l + [0]").evaluate, half).code == "MPR149"


@pytest.mark.parametrize("extra, warned", [(0, False), (1, True)])
def test_diff_probes_at_and_past_the_bound(extra: int, warned: bool, monkeypatch) -> None:
    from interpreter.reports import diff as diff_module
    from interpreter.documents.resources import rulesets_dir
    from interpreter.checks.loading import load_ruleset

    count = limits.MAX_DIFF_PROBES + extra
    found = diff_module.probes
    ran: dict[str, int] = {}

    def many(new, old):
        some = found(new, old)
        return (some * count)[:count] if some else some

    def cheap(diff, ruleset, rule, probe, side):
        ran[rule.id] = ran.get(rule.id, 0) + 1
        return 0

    monkeypatch.setattr(diff_module, "probes", many)
    monkeypatch.setattr(diff_module, "_run_probe", cheap)
    base = load_ruleset(rulesets_dir() / "magipunk")
    variant = load_ruleset(rulesets_dir() / "examples" / "strict_procurement")
    diff = diff_module.compare(base, variant, "en")
    assert ran and max(ran.values()) == 2 * limits.MAX_DIFF_PROBES
    assert any(w.code == "MPR951" for w in diff.warnings) == warned


def test_every_limit_is_documented() -> None:
    """docs/limits.md lists every constant with its value, and every test it names exists."""
    import re

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "limits.md").read_text(encoding="utf-8")
    names = [name for module in LIMIT_MODULES for name in vars(module) if name.isupper()]
    assert len(names) == len(set(names)), "a limit is defined in two layers"
    constants = vars(limits)
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([A-Z_]+)` \| ([0-9,]+) \|", page, re.M)}
    assert set(rows) == set(constants)
    for name, value in constants.items():
        assert int(rows[name].replace(",", "")) == value, name
    for module in LIMIT_MODULES:
        assert f"`{module.__name__.replace('.', '/')}.py`" in page, module.__name__
    named = re.findall(r"`(tests/[a-z_/]+\.py)::([a-z_0-9]+)`", page)
    assert len(named) >= len(constants)
    for file, test in named:
        assert f"def {test}(" in (root / file).read_text(encoding="utf-8"), f"{file}::{test}"
