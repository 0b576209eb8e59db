"""A plain command line read without argparse (``interpreter.cli._quick``) gives the namespace
argparse gives, and anything argparse must read itself (help, errors, abbreviations, values that
start with ``-``) is left to it: the quick reading never answers where argparse would refuse or
read otherwise."""
from __future__ import annotations

import pytest

from interpreter import cli
from interpreter.cli import _quick
from rules_dsl import cachefile
from rules_dsl.errors import MprError


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cachefile.DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)


def _argparse(argv: list[str]) -> dict | None:
    """vars() of argparse's namespace, after keeping the verb's options; None when it refuses."""
    parser = cli.build_parser("en", cli.verbs_needed(argv), argv)
    try:
        args = parser.parse_args(argv)
    except (MprError, SystemExit):
        return None
    _quick.keep(parser, getattr(args, "verb", None))
    return vars(args)


def _keep(verb: str, *args: str) -> None:
    assert _argparse([verb, *args]) is not None


ITEM = "item={materials: [鋼], quality: 傑作}"
PLAIN = [
    ["run", "procurement.rarity", "--input", "in.yaml"],
    ["run", "--input", "in.yaml", "procurement.rarity"],
    ["run", "procurement.rarity", "--input=in.yaml", "--format", "json", "--seed", "3"],
    ["run", "procurement.rarity", "--input", "-", "--param", "a.b.c=1", "--param", "a.b.d=[1, 2]"],
    ["run", "procurement.rarity", "--dice", "3,4", "--lang", "ja", "--debug"],
    ["--lang", "ja", "run", "procurement.rarity"],
    ["--lang=en", "--debug", "run", "procurement.rarity", "--lang", "ja"],
    ["run", "x", "--seed", "+7", "--seed", "8"],
    ["run", "", "--input", ""],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", ITEM],
    ["prob", "procurement.check", "--ruleset", "rs", "--input", "in.yaml", "--svg", "out.svg"],
    ["prob", "2d6 >= 7"],
    ["eval", "1+1", "--var", "x=2"],
]
REFUSED_OR_LEFT = [
    ["run"],
    ["run", "a", "b"],
    ["run", "procurement.rarity", "--input"],
    ["run", "procurement.rarity", "--inp", "in.yaml"],
    ["run", "procurement.rarity", "--seed", "x"],
    ["run", "procurement.rarity", "--seed", "-3"],
    ["run", "procurement.rarity", "--format", "yaml"],
    ["run", "procurement.rarity", "--lang", "fr"],
    ["run", "procurement.rarity", "-h"],
    ["run", "procurement.rarity", "--help"],
    ["run", "procurement.rarity", "--", "--input"],
    ["run", "procurement.rarity", "--debug=1"],
    ["run", "procurement.rarity", "--nothing"],
    ["--version"],
    ["--lang", "run", "procurement.rarity"],
    ["-h", "run", "x"],
    ["prob", "-2d6"],
    ["prob", "procurement.check", "--var", "-x=1"],
    [],
    ["run", "procurement.rarity", "--no-cache"],  # the cache is not read at all
    ["--no-cache", "run", "procurement.rarity"],
]


@pytest.mark.parametrize("argv", PLAIN + REFUSED_OR_LEFT, ids=repr)
def test_the_quick_reading_is_argparses_or_none(argv) -> None:
    for verb in ("run", "prob", "eval"):
        _keep(verb, "x")
    expected = _argparse(argv)
    quick = _quick.read(argv)
    if quick is not None:
        assert vars(quick) == expected
    if argv in PLAIN:
        assert quick is not None and expected is not None  # the plain lines are read quickly


def test_nothing_is_read_quickly_before_argparse_kept_the_verb_or_with_the_cache_off(monkeypatch) -> None:
    argv = ["run", "procurement.rarity", "--input", "in.yaml"]
    assert _quick.read(argv) is None
    _keep("run", "x")
    assert _quick.read(argv) is not None
    monkeypatch.setattr(cachefile, "_disabled", True)
    assert _quick.read(argv) is None


def test_a_verb_with_commands_of_its_own_is_never_kept() -> None:
    _argparse(["campaign", "show", "c.mpc"])
    assert _quick.read(["campaign", "show", "c.mpc"]) is None


@pytest.mark.parametrize("text", ["a.b", "procurement.check", "a1_.b_2.c", "a", "A.b", "1a.b", "_a.b",
                                  "a..b", "a.", ".a", "a.b\n", "a.B", "a.b-c", "á.b", "a.٣", "", "a.b.c.d"])
def test_prob_tells_a_rule_id_as_its_pattern_does(text) -> None:
    import re

    from interpreter.cli.prob import _is_rule_id

    assert _is_rule_id(text) == bool(re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+", text))


@pytest.mark.parametrize("label", ["0", "12", "-3", "1/36", "-1/2", "٣", "１２", "--1", "1/", "/2", "1/2/3",
                                   "a", "", "-", "1.5", " 1", "1\n", "²"])
def test_probability_rows_tell_numbers_as_the_pattern_does(label) -> None:
    import re

    from interpreter.cli._expr import _is_number

    assert _is_number(label) == bool(re.fullmatch(r"-?\d+(/\d+)?", label))
