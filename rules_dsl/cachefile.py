"""Cache files written whole or not at all, shared by the stored parser tables and the ruleset
cache (no import beyond the standard library, so any command may use it at no start-up cost)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def write_atomically(path: Path, blob: bytes) -> None:
    """Write a cache file whole or not at all (a temporary file renamed over it), so readers never
    see half a file and two writers never mix; a read-only or full disk leaves no cache, no error."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cache-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(blob)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
