"""A holder id of a characters file is printable and typeable: NUL and other controls,
zero-width characters and bidi marks (written with YAML's escapes, which the file check cannot
see) are refused, located at the id; ordinary ids, Japanese ones included, are kept."""
from __future__ import annotations

from pathlib import Path

import pytest

from rules_dsl.errors import MprError
from interpreter.campaign.characters import is_id, load_roster

REFUSED = ["rin\\0", "rin\\x01", "r\\u200bin", "rin\\u200d", "\\u202erin", "rin\\u2066",
           "rin\\ufeff", "rin\\u00ad", "rin\\x7f", "rin\\u2028", "rin\\x85", "a b", "a,b", ""]
KEPT = ["rin", "リン", "りん_2", "Ａｌｉｃｅ", "mo-01", "凛"]


@pytest.mark.parametrize("written", REFUSED)
def test_an_id_with_an_invisible_character_is_refused_at_the_id(tmp_path: Path, written: str) -> None:
    chars = tmp_path / "chars.yaml"
    chars.write_text(f'characters:\n  - {{name: x, id: "{written}"}}\n', encoding="utf-8")
    with pytest.raises(MprError) as caught:
        load_roster(str(chars))
    error = caught.value
    assert error.code == "MPR640" and (error.loc.line, error.loc.column) == (2, 19)
    assert "見えない文字" in error.message("ja") and "invisible" in error.message("en")


@pytest.mark.parametrize("written", KEPT)
def test_ordinary_ids_are_kept(tmp_path: Path, written: str) -> None:
    chars = tmp_path / "chars.yaml"
    chars.write_text(f"characters:\n  - {{id: {written}}}\n", encoding="utf-8")
    assert load_roster(str(chars)).characters[0].id == written and is_id(written)
