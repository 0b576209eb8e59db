"""Reasons a plan or an action breaks a rule: coded, bilingual items of a result's ``errors`` list.

An illegal plan is a result (``legal: false``), not an exception; each reason says which rule
refuses what, with a code from the message catalogue and the input path it concerns.
"""
from __future__ import annotations

from typing import Any

from rules_dsl.errors import render


def reason(code: str, path: str, lang: str, **args: Any) -> dict[str, str]:
    """One item of a result's ``errors``: ``{code, message, path}``."""
    return {"code": code, "message": render(code, args, lang), "path": path}


def text(value: Any, lang: str) -> str:
    """A bilingual ``{ja, en}`` label (or a plain string) in ``lang``."""
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("ja") or value.get("en") or "")
    return "" if value is None else str(value)
