"""Helpers of the campaign tests: a private copy of the campaign's rule files (so that edits to the
bundled ruleset during a run do not look like a changed ruleset), a roster, state dumps."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from interpreter.campaign import commands
from interpreter.campaign.store import Store
from interpreter.documents.resources import bundled_ruleset

RULE_FILES = ("ruleset.yaml", "cards.yaml", "rest.yaml", "briefing.yaml")

CHARS = {"characters": [
    {"id": "alice", "name": "アリス", "hand": ["SA", "H10"], "hand_size": 4,
     "items": [{"id": "battery", "name": "Aバッテリー", "held_cards": ["JK1"], "held_size": 2}]},
    {"id": "bob", "hand_size": 3},
]}


def make_ruleset(folder: Path, manifest: dict[str, Any] | None = None) -> Path:
    """The campaign's rule files copied to ``folder``, with ``manifest`` merged into ruleset.yaml."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in RULE_FILES:
        shutil.copy(bundled_ruleset() / name, folder / name)
    if manifest:
        data = yaml.safe_load((folder / "ruleset.yaml").read_text(encoding="utf-8"))
        data.update(manifest)
        (folder / "ruleset.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return folder


_SHARED: dict[str, Path] = {}
_BASE = Path(tempfile.mkdtemp(prefix="mprules-campaign-rules-"))


def shared_ruleset(manifest: dict[str, Any] | None = None) -> Path:
    """One copy per manifest for the whole test run (loaded once, thanks to the pin cache)."""
    key = json.dumps(manifest, sort_keys=True)
    if key not in _SHARED:
        _SHARED[key] = make_ruleset(_BASE / f"r{len(_SHARED)}" / "rules", manifest)
    return _SHARED[key]


def make_campaign(tmp: Path, *, seed: int = 1, chars: dict | None = None,
                  manifest: dict[str, Any] | None = None, name: str = "c.db", private: bool = False,
                  **options: Any) -> str:
    """A campaign file in ``tmp``; ``private`` gives it its own copy of the rules to edit
    (``tmp / f"rules_{name}"``)."""
    ruleset = make_ruleset(tmp / f"rules_{name}", manifest) if private else shared_ruleset(manifest)
    chars_file = tmp / f"chars_{name}.yaml"
    chars_file.write_text(yaml.safe_dump(chars or CHARS, allow_unicode=True), encoding="utf-8")
    path = str(tmp / name)
    commands.init(path, str(chars_file), ruleset=str(ruleset), seed=seed, **options)
    return path


def dump(path: str) -> dict[str, Any]:
    with Store.open(path) as store:
        return store.load().dump()


def holders(path: str) -> dict[str, list[str]]:
    return dump(path)["cards"]["holders"]


def as_version_2(path: str) -> None:
    """Rewrite a campaign file as mprules wrote it at schema version 2, each journal entry keeping
    the whole state before its command (version 3 keeps what changed): the chain of entries not
    undone is walked back from the campaign's state. An undone entry keeps the state its patch
    gives from the next one's (it is never undone again)."""
    import sqlite3

    from interpreter.campaign import delta

    with Store.open(path) as store:
        base = store.load().dump()
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq, before, undone_by FROM journal WHERE before IS NOT NULL "
                            "ORDER BY seq DESC").fetchall()
        for seq, kept, undone_by in rows:
            before = delta.apply(base, json.loads(kept)["@patch"])
            conn.execute("UPDATE journal SET before = ? WHERE seq = ?",
                         (json.dumps(before, ensure_ascii=False, sort_keys=True), seq))
            if undone_by is None:
                base = before
        conn.execute("DELETE FROM schema_version WHERE version > 2")
        conn.commit()
    finally:
        conn.close()
