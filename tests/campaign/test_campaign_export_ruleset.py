"""A campaign export restores its ruleset (#24 item 9): `init --characters EXPORT` without
`--ruleset` pins the ruleset the export names, with its adoption switches and parameters; a named
ruleset that is not there is refused (MPR029) and nothing falls back to the bundled rules; an
explicit `--ruleset` wins."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from interpreter.cli import main
from interpreter.documents.resources import rulesets_dir

CHARS = "characters:\n  - id: rin\n    hand_size: 4\n"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def pinned(capsys, db: Path) -> dict:
    code, out, err = cli(capsys, "campaign", "show", str(db), "--format", "json")
    assert code == 0, err
    return json.loads(out)["ruleset"]


@pytest.fixture
def variant(tmp_path: Path) -> Path:
    target = tmp_path / "house"
    shutil.copytree(rulesets_dir() / "examples" / "strict_procurement", target)
    manifest = target / "ruleset.yaml"  # the copy extends the bundled ruleset by its name
    assert "extends: magipunk" in manifest.read_text(encoding="utf-8")
    return target


def exported(capsys, tmp_path: Path, *init_args: str) -> Path:
    (tmp_path / "chars.yaml").write_text(CHARS, encoding="utf-8")
    db = tmp_path / "a.db"
    code, _, err = cli(capsys, "campaign", "init", str(db), "--characters", str(tmp_path / "chars.yaml"),
                       "--seed", "3", *init_args)
    assert code == 0, err
    out_file = tmp_path / "export.yaml"
    code, _, err = cli(capsys, "campaign", "export", str(db), "--output", str(out_file))
    assert code == 0, err
    return out_file


@pytest.mark.parametrize("init_args, adopt, params", [
    ((), {}, {}),
    (("--no-adopt", "circulation.sleep"), {"circulation.sleep": False}, {}),
    (("--param", "procurement.check.time_dice_cap=2"), {}, {"procurement.check": {"time_dice_cap": 2}}),
])
def test_an_export_of_a_variant_comes_back_on_that_variant(capsys, tmp_path, variant, init_args, adopt, params):
    export = exported(capsys, tmp_path, "--ruleset", str(variant), *init_args)
    campaign = yaml.safe_load(export.read_text(encoding="utf-8"))["campaign"]
    assert campaign["ruleset"] == str(variant)
    db = tmp_path / "b.db"
    code, _, err = cli(capsys, "campaign", "init", str(db), "--characters", str(export))
    assert code == 0, err
    ruleset = pinned(capsys, db)
    assert (ruleset["path"], ruleset["adopt"], ruleset["param_overrides"]) == (str(variant), adopt, params)


def test_an_export_of_the_bundled_ruleset_comes_back_on_it(capsys, tmp_path):
    export = exported(capsys, tmp_path)
    assert yaml.safe_load(export.read_text(encoding="utf-8"))["campaign"]["ruleset"] == "(bundled)"
    db = tmp_path / "b.db"
    assert cli(capsys, "campaign", "init", str(db), "--characters", str(export))[0] == 0
    assert pinned(capsys, db)["path"] is None


@pytest.mark.parametrize("lang, words", [("en", "give it with --ruleset DIR"), ("ja", "--ruleset DIR で指定")])
def test_a_missing_ruleset_of_an_export_is_refused_not_replaced(capsys, tmp_path, variant, lang, words):
    export = exported(capsys, tmp_path, "--ruleset", str(variant))
    shutil.rmtree(variant)
    db = tmp_path / "b.db"
    code, out, err = cli(capsys, "--lang", lang, "campaign", "init", str(db), "--characters", str(export))
    assert code == 3 and not db.exists()
    line = next(n for n, text in enumerate(export.read_text(encoding="utf-8").splitlines(), 1)
                if text.lstrip().startswith("ruleset:"))
    assert f"export.yaml:{line}:" in err and "MPR029" in err and str(variant) in err and words in err, err


def test_a_relative_ruleset_is_read_from_the_exports_folder(capsys, tmp_path, variant):
    export = exported(capsys, tmp_path, "--ruleset", str(variant))
    text = export.read_text(encoding="utf-8").replace(f"ruleset: {variant}", "ruleset: house")
    export.write_text(text, encoding="utf-8")
    db = tmp_path / "b.db"
    assert cli(capsys, "campaign", "init", str(db), "--characters", str(export))[0] == 0
    assert Path(pinned(capsys, db)["path"]) == variant


def test_the_ruleset_given_on_the_command_line_wins(capsys, tmp_path, variant):
    export = exported(capsys, tmp_path, "--ruleset", str(variant))
    shutil.rmtree(variant)
    db = tmp_path / "b.db"
    bundled = str(rulesets_dir() / "magipunk")
    assert cli(capsys, "campaign", "init", str(db), "--characters", str(export), "--ruleset", bundled)[0] == 0
    assert pinned(capsys, db)["path"] == bundled
