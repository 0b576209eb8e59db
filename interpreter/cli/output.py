"""Printing for every verb: JSON (stable, UTF-8, exact fractions as strings), errors, colour."""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from rules_dsl.errors import MprError

from ..trace import jsonable


def print_json(data: Any) -> None:
    print(json.dumps(jsonable(data), ensure_ascii=False, indent=2))


def print_error(error: MprError, lang: str) -> None:
    where = f"{error.loc}: " if error.loc and str(error.loc) else ""
    print(f"{where}{error.code} {error.message(lang)}", file=sys.stderr)


def colour_enabled(stream: Any = None) -> bool:
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def bar(fraction: float, width: int = 40) -> str:
    """A horizontal bar of ``fraction`` (0..1) of ``width`` cells, with eighth-cell precision."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else "▏▎▍▌▋▊▉"[part - 1])
