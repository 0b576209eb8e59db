"""What the fast commands import: only the verb's own parser, no lark (the parse tables are
stored), no YAML reader for ``check`` (the bundled check data is cached as JSON), and no
dataclasses or typing for ``--version`` and ``eval``. Module sets, never timings."""
from __future__ import annotations

import ast
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter.cli as cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ["lark", "yaml", "dataclasses", "typing", "jsonschema", "pathlib", "pickle"]


def test_the_verb_list_names_every_verb_module() -> None:
    found = sorted(info.name for info in pkgutil.iter_modules(cli.__path__)
                   if not info.name.startswith("_") and info.name != "output")
    assert sorted(cli.VERBS) == found


@pytest.mark.parametrize("argv, needed", [
    (["eval", "1+1"], ("eval",)),
    (["--lang", "ja", "check", "2MP12"], ("check",)),
    (["--lang=en", "--debug", "prob", "2d6"], ("prob",)),
    (["--version"], ()),
    (["--no-cache", "--version", "eval"], ()),
    ([], cli.VERBS),
    (["--help"], cli.VERBS),
    (["-h", "eval"], cli.VERBS),
    (["nosuchverb"], cli.VERBS),
    (["--lang", "eval"], cli.VERBS),  # "eval" is the value of --lang: argparse reports it
])
def test_only_the_parsers_the_command_line_can_reach_are_built(argv, needed) -> None:
    assert cli.verbs_needed(argv) == needed


CAMPAIGN = ("init", "show", "sleep")


@pytest.mark.parametrize("after, needed", [
    (["show", "c.mpc"], ("show",)),
    (["sleep", "c.mpc", "rin", "--hours", "8"], ("sleep",)),
    (["show", "--help"], ("show",)),
    (["--help"], CAMPAIGN),
    ([], CAMPAIGN),
    (["shw", "c.mpc"], CAMPAIGN),  # a typo: argparse lists every command it knows
])
def test_a_verb_with_commands_builds_only_the_one_named(after, needed) -> None:
    assert cli.verbs_needed(after, CAMPAIGN) == needed


@pytest.mark.parametrize("argv, shown", [
    (["campaign", "--help"], ["init", "show", "sleep", "circulate", "repin"]),
    (["campaign", "sleep", "--help"], ["--hours"]),
])
def test_the_help_of_a_verb_with_commands_still_lists_them(argv, shown, capsys) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser("en", ("campaign",), argv).parse_args(argv)
    out = capsys.readouterr().out
    assert all(word in out for word in shown), out


def _modules_after(argv: list[str], tmp_path: Path) -> tuple[int, list[str], str]:
    """The exit status of ``mprules ARGV`` in a fresh interpreter (run twice: the first run may
    fill the cache), the modules it had loaded, and what it wrote on standard error."""
    code = ("import sys, json; from interpreter.cli import main; status = main(%r); "
            "print(json.dumps([status, sorted(sys.modules)]))" % (argv,))
    env = dict(os.environ, MPRULES_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=ROOT, env=env)
    status, modules = json.loads(out.stdout.strip().splitlines()[-1])
    return status, modules, out.stderr


def _imported(argv: list[str], tmp_path: Path) -> set[str]:
    status, modules, err = _modules_after(argv, tmp_path)
    assert status == 0, err
    return {name for name in modules if name.split(".")[0] in HEAVY}


@pytest.mark.parametrize("argv, allowed", [
    (["eval", "1+1"], set()),
    (["eval", "2d6 + 1", "--seed", "3"], set()),
    (["check", "2MP12", "--dice", "5,9"], {"dataclasses", "typing"}),
])
def test_fast_commands_leave_heavy_modules_alone(argv, allowed, tmp_path) -> None:
    heavy = {name.split(".")[0] for name in _imported(argv, tmp_path)}
    assert heavy <= allowed, sorted(heavy - allowed)


CHARACTERS = """\
characters:
  - {id: rin, name: リン, hand_size: 4}
  - {id: kai, name: カイ, hand_size: 4}
"""


@pytest.mark.parametrize("command", [
    ["show"], ["sleep", "rin", "--hours", "8"], ["dawn"], ["log", "--last", "2"], ["advance", "--minutes", "30"],
])
def test_campaign_commands_on_a_warm_cache_leave_heavy_modules_alone(command, tmp_path) -> None:
    """With the pinned ruleset's cache entry true, a campaign command reads no YAML, validates no
    schema, and imports neither dataclasses nor typing nor pathlib."""
    (tmp_path / "chars.yaml").write_text(CHARACTERS, encoding="utf-8")
    file = str(tmp_path / "c.mpc")
    assert cli.main(["campaign", "init", file, "--characters", str(tmp_path / "chars.yaml"), "--seed", "1"]) == 0
    argv = ["campaign", command[0], file, *command[1:]]
    assert _imported(argv, tmp_path) == set()


def test_version_prints_without_heavy_modules(tmp_path) -> None:
    code = "from interpreter.cli import main; main(['--version'])"
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True,
                         text=True, cwd=ROOT)
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert out.stdout.startswith("mprules ")
    assert not {name for name in imported if name.split(".")[0] in HEAVY}

# fractions (with decimal) loads with the first non-whole number (a division that does not come
# out even, a decimal --var, the hint for a decimal literal); the generator (``_random``, random's
# core) when a seeded source gives a die, and never module ``random`` itself (rules_dsl.dice).
NUMBER_MODULES = ("fractions", "decimal", "random", "_random")
_FRACTIONS = {"fractions", "decimal"}


@pytest.mark.parametrize("argv, status, expected", [
    (["eval", "1+1"], 0, set()),
    (["eval", "1+1", "--seed", "3"], 0, set()),  # a seed, but no die: the generator is not made
    (["eval", "'a' + 'b' < 'c'"], 0, set()),
    (["eval", "6/3 + floor(7/2) + round(x)", "--var", "x=3"], 0, set()),  # every number whole
    (["eval", "2d6", "--dice", "3,4"], 0, set()),  # the dice rolled at the table
    (["eval", "2d6 + 1", "--seed", "1"], 0, {"_random"}),
    (["eval", "2d6"], 0, {"_random"}),  # no seed: one is drawn, and the dice rolled from it
    (["eval", "7/2"], 0, _FRACTIONS),
    (["eval", "x * 2", "--var", "x=0.5"], 0, _FRACTIONS),  # a YAML float read exactly
    (["eval", "1.5"], 1, _FRACTIONS),  # the error writes the fraction to use instead
    (["check", "2MP12", "--dice", "5,9"], 0, set()),
    (["check", "2MP12", "--seed", "1"], 0, {"_random"}),
])
def test_a_command_loads_fractions_and_random_only_when_it_needs_them(argv, status, expected,
                                                                      tmp_path) -> None:
    code, modules, err = _modules_after(argv, tmp_path)
    assert (code, {name for name in modules if name in NUMBER_MODULES}) == (status, expected), err


# The modules that parse, check and compile an expression text (lark is never loaded at all).
COMPILING = {"rules_dsl.parser", "rules_dsl.lalr", "rules_dsl.grammar_tables", "rules_dsl.checker",
             "rules_dsl.codegen", "rules_dsl.compiler"}


@pytest.mark.parametrize("argv, compiles", [
    (["eval", "1+1"], False),
    (["eval", "max(x, 3) * 2 + d6", "--var", "x=4", "--seed", "2"], False),
    (["check", "2MP12", "--dice", "5,9"], False),
    (["check", "3MP15C10", "--prob"], False),
    (["eval", "7/2 + 1"], True),   # a fraction among its constants: its code is not kept
    (["eval", "[d6 for i in [1, 2]]", "--seed", "1"], True),  # dice in a loop: no generated code
])
def test_a_text_compiled_by_an_earlier_command_is_not_compiled_again(argv, compiles, tmp_path) -> None:
    status, modules, err = _modules_after(argv, tmp_path)  # the second of two runs
    assert status == 0, err
    assert bool(COMPILING & set(modules)) is compiles, sorted(COMPILING & set(modules))


# The table-side commands on a warm cache (#26): no validator (jsonschema, referencing, attrs) for
# inputs that surely pass, no SVG writer (and its xml/urllib/http) without --svg.
VALIDATOR = {"jsonschema", "referencing", "attrs", "rpds"}
SVG = {"interpreter.reports.svg", "xml", "urllib.request", "http"}
_RULESETS = ROOT / "rulesets"


@pytest.mark.parametrize("argv, absent", [
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml"], VALIDATOR | SVG),
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml", "--format", "json"], VALIDATOR | SVG),
    (["prob", "procurement.check", "--var", "intellect=12", "--var", "item={materials: [鋼], quality: 傑作}"],
     VALIDATOR | SVG),
    (["prob", "3MP15C10"], VALIDATOR | SVG | {"yaml"}),
    (["prob", "2d6 + 1"], VALIDATOR | SVG | {"yaml"}),
    (["diff", str(_RULESETS / "magipunk"), str(_RULESETS / "examples" / "strict_procurement")], SVG),
    (["doc", str(_RULESETS / "magipunk")], SVG),
])
def test_table_side_commands_load_only_what_they_use(argv, absent, tmp_path) -> None:
    _assert_left_alone(argv, absent, tmp_path)


def _assert_left_alone(argv: list[str], absent: set[str], tmp_path) -> None:
    """``argv`` (``{dir}``: a folder with in.yaml) runs and loads none of ``absent`` (nor their submodules)."""
    (tmp_path / "in.yaml").write_text("item: {materials: [鋼], quality: 標準}\n", encoding="utf-8")
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    status, modules, err = _modules_after(argv, tmp_path)
    assert status == 0, err
    loaded = {name for name in modules if name in absent or name.split(".")[0] in absent}
    assert not loaded, sorted(loaded)


# run and prob RULE on a warm cache (#26, <= 3x python -c pass): an input or --var text read before
# comes from the cache without PyYAML, the rule alone is unpickled, and the warm path builds no
# dataclass and reads no annotation, and a plain command line is read without argparse (its options
# as argparse read them are kept), so none of these load. run's whole numbers need no fractions.
WARM_ABSENT = {"yaml", "dataclasses", "inspect", "typing", "pathlib", "lark", "hashlib", "copy", "argparse", "pickle",
               "rules_dsl.parser", "interpreter.documents.loader"}


@pytest.mark.parametrize("argv, absent", [
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml"], WARM_ABSENT | _FRACTIONS),
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml", "--format", "json"], WARM_ABSENT),
    (["prob", "procurement.check", "--var", "intellect=12", "--var", "item={materials: [鋼], quality: 傑作}"],
     WARM_ABSENT),
    (["prob", "procurement.check", "--var", "intellect=9", "--input", "{dir}/in.yaml"], WARM_ABSENT),
])
def test_run_and_prob_of_a_rule_on_a_warm_cache_leave_these_alone(argv, absent, tmp_path) -> None:
    _assert_left_alone(argv, absent, tmp_path)


# run on a warm cache reads its ruleset from the cache alone (ruleset.cache.load_kept): nothing that
# reads and checks a ruleset loads, nor json (its JSON is written by rules_dsl.plain.json_indented).
RUN_WARM_ABSENT = WARM_ABSENT | {"json", "interpreter.checks", "interpreter.ruleset.layers",
                                 "interpreter.ruleset.merge", "interpreter.ruleset.variants"}


@pytest.mark.parametrize("argv, absent", [
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml"], RUN_WARM_ABSENT | _FRACTIONS),
    (["run", "procurement.rarity", "--input", "{dir}/in.yaml", "--format", "json"], RUN_WARM_ABSENT),
    (["run", "cohabitation.leisure.city", "--seed", "1"], RUN_WARM_ABSENT | _FRACTIONS),
    (["run", "cohabitation.leisure.city", "--dice", "3,4", "--format", "json"], RUN_WARM_ABSENT | _FRACTIONS),
    (["run", "cohabitation.leisure", "--input", "{dir}/leisure.yaml", "--seed", "3"], RUN_WARM_ABSENT | _FRACTIONS),
])
def test_run_on_a_warm_cache_reads_and_checks_no_ruleset(argv, absent, tmp_path) -> None:
    for name, text in (("in.yaml", "item: {materials: [鋼], quality: 標準}\n"),
                       ("leisure.yaml", "{table: city, safety: 2, residents: [アキラ, ベル]}\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    # the modules written with repr: json itself must not be loaded to tell them
    code = ("import sys; from interpreter.cli import main; status = main(%r); "
            "print(repr([status, sorted(sys.modules)]))" % (argv,))
    env = dict(os.environ, MPRULES_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # the first run fills the cache
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    status, modules = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert status == 0, out.stderr
    loaded = {name for name in modules if name in absent or name.split(".")[0] in absent}
    assert not loaded, sorted(loaded)


def test_an_input_that_fails_still_gets_its_findings(tmp_path) -> None:
    (tmp_path / "in.yaml").write_text("item: {materials: [鋼], quality: 最高}\n", encoding="utf-8")
    status, modules, err = _modules_after(["run", "procurement.rarity", "--input", str(tmp_path / "in.yaml")],
                                          tmp_path)
    assert status == 1 and "MPR500" in err and "in.yaml:1" in err
    assert "jsonschema" in modules  # the validator words the finding


@pytest.mark.parametrize("value", [0, 7, -3, 10 ** 30, True, False, None, "鋼", "yes", "7/2", 1.5, [], {},
                                   [1, "a"], {"a": [1, 2]}])
def test_a_run_value_is_written_as_pyyaml_writes_it(value) -> None:
    import yaml

    from interpreter.cli.run import shown_value

    if isinstance(value, (dict, list)) and value:
        expected = yaml.safe_dump(value, allow_unicode=True, sort_keys=False, width=100,
                                  default_flow_style=None).rstrip()
    else:
        expected = yaml.safe_dump(value, allow_unicode=True).removesuffix("\n...\n").rstrip()
    assert shown_value(value) == expected
