"""Fuzzing the whole of ``validate`` (tests/documents/test_documents.py fuzzes the YAML loader alone): any
bytes, and real rule files with bytes flipped, inserted or cut, give findings with a code and a
file position, never an exception. Runs on both PyYAML loaders' default (the C one when present)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter.documents.resources import bundled_ruleset
from interpreter.checks.validation import validate_paths
from rules_dsl.errors import Diagnostic

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FOLDER = Path(tempfile.mkdtemp(prefix="mprules-fuzz-yaml-"))
SEEDS = [bundled_ruleset() / name for name in ("procurement.yaml", "cards.yaml", "rest.yaml")]
HEAD = b"id: f.z\nkind: SumTable\nsource: R9\ntitle: {ja: f, en: f}\n"


def validated(data: bytes) -> list[Diagnostic]:
    path = FOLDER / "fuzz.yaml"
    path.write_bytes(data)
    findings = validate_paths([str(path)], "en")
    for d in findings:
        assert d.code.startswith("MPR") and d.code != "MPR000", d
        assert d.severity in ("error", "warning", "info")
        assert d.file, d
        if d.line is not None:
            assert d.line >= 1 and (d.column is None or d.column >= 1), d
    return findings


@SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes(data: bytes) -> None:
    validated(data)


@SETTINGS
@given(st.binary(max_size=200))
def test_any_bytes_after_a_valid_head(data: bytes) -> None:
    validated(HEAD + data)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A bundled rule file with a few bytes flipped, inserted, removed or duplicated."""
    data = bytearray(draw(st.sampled_from(SEEDS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data) - 1))
        how = draw(st.sampled_from(["flip", "insert", "cut", "repeat"]))
        if how == "flip":
            data[at] = draw(st.one_of(st.integers(0x20, 0x7E), st.integers(0, 255)))
        elif how == "insert":
            data[at:at] = draw(st.sampled_from(
                [b"\x00", b"\t", b"&a ", b"*a", b"- ", b": ", b"{", b"[", b"'", b'"', b"!!binary ",
                 b"<<: ", b"\xe3\x81", b"\x82\xa0", b"\n  ", b"---\n", b"? ", b"\xef\xbb\xbf",
                 b"d0", b"**", b"9" * 80, b" if ", b"(", b")", b"null", b".nan", b"1:30", b"no"]))
        elif how == "cut":
            del data[at:at + draw(st.integers(1, 40))]
        else:
            piece = bytes(data[at:at + draw(st.integers(1, 200))])
            data[at:at] = piece
    return bytes(data)


@SETTINGS
@given(mutated())
def test_mutated_rule_files(data: bytes) -> None:
    validated(data)


def test_the_seeds_themselves_are_clean() -> None:
    for seed in SEEDS:
        assert not [d for d in validated(seed.read_bytes()) if d.severity == "error"], seed
