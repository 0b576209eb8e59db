"""``Diagnostic``, one finding of ``validate`` (kept apart from ``rules_dsl.errors`` so that the
commands which report no findings never make it; ``rules_dsl.errors.Diagnostic`` is this class)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Diagnostic:
    """One finding of ``validate``; the JSON form is the contract of DESIGN.md."""

    file: str | None
    line: int | None
    column: int | None
    code: str
    severity: str  # "error" | "warning" | "info"
    message: str
    path: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "code": self.code, "severity": self.severity, "message": self.message}
