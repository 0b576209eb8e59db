"""Helpers for tests that build small rulesets on disk (base and variant layers)."""
from __future__ import annotations

from pathlib import Path


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative name -> text) under ``root``; returns ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def manifest(rid: str, extra: str = "") -> str:
    """The text of a minimal ``ruleset.yaml`` with id ``rid``, followed by ``extra``."""
    return f'id: {rid}\nversion: "1.0.0"\ntitle: {{en: {rid}}}\n{extra}'
