"""``rules_dsl.codecache``: the generated code of an expression kept for the next command. A kept
expression gives exactly what a fresh compile gives (the value and its type, the located error, the
dice it rolls, its AST, names and whether it rolls dice); a damaged or foreign file is ignored, never
run; a finding is never kept; the file stays within its limits; the cache can be turned off."""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rules_dsl import cachefile, codecache, expression
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import Location, MprError

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # (text, names or None, env, dice script: a list, None for a seed, "none" for no dice source)
    ("1 + 2 * x", ["x"], {"x": 4}, "none"),
    ("1 + 2 * x", ["x"], {"x": Fraction(1, 3)}, "none"),  # the generic function, then the closures
    ("1 + 2 * x", ["x"], {"x": "a"}, "none"),  # MPR142 from the closures, located
    ("x ** 300", ["x"], {"x": 2}, "none"),  # MPR143
    ("max(1, x) + clamp(x, 0, 3) + abs(-x) + floor(x / 2)", ["x"], {"x": 5}, "none"),
    ("'a' + s if s in ['b', 'c'] else 'z'", ["s"], {"s": "b"}, "none"),
    ("[v * 2 for v in xs if v > 1]", ["xs"], {"xs": [1, 2, 3]}, "none"),
    ("sum(v for v in xs) + count(v for v in xs if v)", ["xs"], {"xs": [0, 2, 5]}, "none"),
    ("let r = x * x in r - 1", None, {"x": 7}, "none"),
    ("item.price * 2", ["item"], {"item": {"price": 3}}, "none"),
    ("item.price * 2", ["item"], {"item": {}}, "none"),  # a missing field: the closures' error
    ("7 / 2 + x", ["x"], {"x": 1}, "none"),  # a fraction constant: not kept, compiled every time
    ("true and x", ["x"], {"x": 1}, "none"),  # MPR: not a boolean
    ("2d6 + x", ["x"], {"x": 1}, [3, 4]),
    ("2d6 + x", ["x"], {"x": "a"}, [3, 4]),  # hands over after rolling
    ("d66 if x > 2 else clamp(d20, 1, 5)", ["x"], {"x": 1}, [17]),
    ("3d6 + 2d6", None, {}, [1, 2, 3, 4]),  # the script runs out
    ("let r = 2d6 in r * r - x", ["x"], {"x": 1}, None),
    ("[d6 for i in [1, 2, 3]]", None, {}, None),  # dice in a loop: closures only, kept all the same
    ("2d6 + x", ["x"], {"x": 1}, "none"),  # MPR145: no dice source
]
ORIGIN = Location("rules.yaml", 12, 9)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cachefile.DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    monkeypatch.setattr(cachefile, "_disabled", False)
    _new_process()
    yield tmp_path / "cache" / codecache.FILE_NAME
    _new_process()


def _new_process() -> None:
    """Forget what this process compiled, as the next command starts with nothing in memory."""
    expression._compile_text.cache_clear()
    expression._parse_unlocated.cache_clear()
    expression._located.cache_clear()
    codecache._known = None
    codecache._new.clear()


def _outcome(compiled: expression.Expression, env: dict, script) -> tuple:
    dice = None if script == "none" else SeededDice(7) if script is None else ScriptedDice(script)
    try:
        value = compiled.evaluate(env, dice)
        result = ("value", value, type(value))
    except MprError as error:
        result = ("error", error.code, error.loc)
    return result, None if dice is None else [(d.faces, d.value) for d in dice.rolled]


def _kept_and_fresh(text: str, names, origin: Location | None):
    fresh = expression.compile_expression(text, origin, names)
    codecache.flush()
    _new_process()
    kept = expression.compile_expression(text, origin, names)
    return kept, fresh


@pytest.mark.parametrize("text, names, env, script", CASES)
@pytest.mark.parametrize("origin", [None, ORIGIN])
def test_a_kept_expression_gives_what_a_fresh_one_gives(cache, text, names, env, script, origin):
    kept, fresh = _kept_and_fresh(text, names, origin)
    kept_made_again = "ast" not in kept.__dict__  # no parse: made from the kept code
    assert kept_made_again is (Fraction not in {type(v) for v in _constants(fresh)})
    assert _outcome(kept, env, script) == _outcome(fresh, env, script)
    assert (kept.text, kept.names, kept.has_dice, kept.origin) == \
           (fresh.text, fresh.names, fresh.has_dice, fresh.origin)
    assert kept.ast == fresh.ast


def _constants(compiled: expression.Expression) -> list:
    from rules_dsl.generated import links

    fast = compiled.__dict__.get("evaluate")
    return [v for _, constants, _ in (links(fast) if fast else []) for v in constants.values()]


def test_a_text_with_a_finding_is_never_kept(cache):
    with pytest.raises(MprError):
        expression.compile_expression("1 +", None, None)
    with pytest.raises(MprError):
        expression.compile_expression("y + 1", None, ["x"])  # unknown name for these names
    expression.compile_expression("y + 1", None, ["y"])
    assert len(codecache._new) == 1
    codecache.flush()
    _new_process()
    with pytest.raises(MprError) as raised:  # the same text, other names: checked again
        expression.compile_expression("y + 1", None, ["x"])
    assert raised.value.code == "MPR133"  # an unknown name


def _damage_body(blob: bytes) -> bytes:
    middle = len(blob) // 2
    return blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1:]


@pytest.mark.parametrize("damage", [
    lambda blob: blob[: len(blob) // 2],          # cut short
    _damage_body,                                 # a flipped byte: its CRC no longer matches
    lambda blob: b"MPRX0" + blob[5:],             # another format
    lambda blob: b"",
    lambda blob: os.urandom(len(blob)),
])
def test_a_damaged_file_is_ignored_and_written_again(cache, damage):
    expression.compile_expression("x * 3 + 1", None, ["x"])
    codecache.flush()
    cache.write_bytes(damage(cache.read_bytes()))
    _new_process()
    again = expression.compile_expression("x * 3 + 1", None, ["x"])
    assert "ast" in again.__dict__  # compiled anew
    assert again.evaluate({"x": 2}) == 7
    codecache.flush()
    _new_process()
    assert "ast" not in expression.compile_expression("x * 3 + 1", None, ["x"]).__dict__


def test_a_file_of_another_mprules_is_not_read(cache, monkeypatch):
    expression.compile_expression("x - 1", None, ["x"])
    codecache.flush()
    _new_process()
    monkeypatch.setattr(cachefile, "_stamp", "checkout of other code")
    assert codecache.lookup(codecache.key("x - 1", frozenset({"x"}))) is None


def test_an_entry_that_is_not_an_expression_is_not_used(cache, monkeypatch):
    key = codecache.key("x + 5", frozenset({"x"}))
    for entry in [("x",), (("x",), "no", None), (("x",), False, ((b"not code", {}, None),))]:
        codecache._new[key] = __import__("marshal").dumps(entry)
        codecache.flush()
        _new_process()
        assert codecache.lookup(key) is None
    assert expression.compile_expression("x + 5", None, ["x"]).evaluate({"x": 1}) == 6


@pytest.mark.parametrize("limit, at_bound", [("MAX_CACHED_EXPRESSIONS", True), ("MAX_CACHED_EXPRESSIONS", False),
                                             ("MAX_CODE_CACHE_BYTES", True), ("MAX_CODE_CACHE_BYTES", False)])
def test_the_file_keeps_the_newest_entries_within_its_limits(cache, monkeypatch, limit, at_bound):
    texts = [f"x + {n}" for n in range(5)]
    for text in texts:
        expression.compile_expression(text, None, ["x"])
    sizes = {text: len(codecache._new[codecache.key(text, frozenset({"x"}))]) + len(codecache.key(text, frozenset({"x"})))
             for text in texts}
    keep = 5 if at_bound else 3
    bound = keep if limit == "MAX_CACHED_EXPRESSIONS" else sum(sizes[t] for t in texts[-keep:])
    monkeypatch.setattr(codecache, limit, bound)
    codecache.flush()
    _new_process()
    kept = [t for t in texts if codecache.lookup(codecache.key(t, frozenset({"x"}))) is not None]
    assert kept == texts[-keep:]


def test_an_entry_is_added_to_what_the_file_holds(cache):
    expression.compile_expression("x + 100", None, ["x"])
    codecache.flush()
    _new_process()
    expression.compile_expression("x + 200", None, ["x"])
    codecache.flush()
    _new_process()
    assert all(codecache.lookup(codecache.key(t, frozenset({"x"}))) for t in ("x + 100", "x + 200"))


def test_the_cache_turned_off_keeps_nothing(cache, monkeypatch):
    monkeypatch.setenv(cachefile.DISABLE_ENV, "1")
    expression.compile_expression("x * 9", None, ["x"])
    codecache.flush()
    assert not cache.exists()


def test_an_unwritable_cache_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv(cachefile.DIR_ENV, str(blocker / "cache"))  # under a file: cannot be made
    monkeypatch.delenv(cachefile.DISABLE_ENV, raising=False)
    _new_process()
    assert expression.compile_expression("x * 8", None, ["x"]).evaluate({"x": 2}) == 16
    codecache.flush()
    _new_process()


def test_commands_ending_at_once_leave_a_whole_file(tmp_path):
    """Several processes compile different texts and write at the same moment: the file is one
    of their whole files, and every entry in it is right."""
    code = ("import sys; from rules_dsl import compile_expression, codecache; n = int(sys.argv[1]); "
            "[compile_expression(f'x * {n} + {i}', None, ['x']) for i in range(40)]; codecache.flush()")
    env = dict(os.environ, MPRULES_CACHE_DIR=str(tmp_path / "cache"))
    env.pop(cachefile.DISABLE_ENV, None)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(n)], cwd=ROOT, env=env) for n in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 4
    check = ("from rules_dsl import codecache, expression; kept = codecache._read(); "
             "bad = [k for k in kept if expression.compile_expression(k.split(chr(0))[0], None, ['x'])"
             ".evaluate({'x': 3}) != eval(k.split(chr(0))[0].replace('x', '3'))]; "
             "print(len(kept), len(bad))")
    out = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, capture_output=True, text=True)
    count, bad = map(int, out.stdout.split())
    assert count >= 40 and bad == 0, out.stderr
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name.endswith(".tmp")] == []


def test_a_long_process_holds_at_most_the_limit_of_new_entries(cache, monkeypatch):
    monkeypatch.setattr(codecache, "MAX_CACHED_EXPRESSIONS", 3)
    for n in range(6):
        expression.compile_expression(f"x - {n}", None, ["x"])
    assert list(codecache._new) == [codecache.key(f"x - {n}", frozenset({"x"})) for n in (3, 4, 5)]
