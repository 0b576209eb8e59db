"""``Diagnostic``, one finding of ``validate`` (kept apart from ``rules_dsl.errors`` so that the
commands which report no findings never load it; ``rules_dsl.errors.Diagnostic`` is this class)."""
from __future__ import annotations

from .frozen import Frozen

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Diagnostic(Frozen):
    """One finding of ``validate``: where, its code, severity ("error", "warning" or "info") and
    message, and the field path inside the document (not compared). ``to_json`` is the shape of
    ``validate --format json``'s findings, a fixed contract."""

    __slots__ = ("file", "line", "column", "code", "severity", "message", "path")
    _defaults = {"path": None}
    _uncompared = frozenset({"path"})
    file: str | None
    line: int | None
    column: int | None
    code: str
    severity: str
    message: str
    path: str | None

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "code": self.code, "severity": self.severity, "message": self.message}
