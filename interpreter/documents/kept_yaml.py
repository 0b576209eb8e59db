"""The documents of a small YAML data text (an input file, a ``--var`` or ``--param`` value) kept
between commands, so that a command given a text it has read before reads it without PyYAML.

A text is read by ``interpreter.documents.loader`` (PyYAML, every check, every error) the first
time; when it reads without an error and without a value other YAML readers read differently
(MPR325, which must be shown each time), its documents (data, positions, written texts) are kept
in the cache folder ``texts/``, one file per text named by a SHA-256 of the file name and the text,
in ``marshal``'s format (reading it imports nothing). The next command that reads the same bytes
under the same name compares both whole with the entry before using it; a text never seen, an
entry of another mprules (``cachefile.code_stamp``), a damaged entry, and a text with an error go
through PyYAML as always, so the values, positions and errors are the same. At most
``MAX_KEPT_TEXTS`` entries of ``MAX_KEPT_TEXT_BYTES`` each are kept, the oldest dropped first.

This module imports only the standard library and ``rules_dsl.cachefile``: ``loader`` (and PyYAML)
load only for a text that is not kept.
"""
from __future__ import annotations

import os
import stat

from rules_dsl import cachefile
from interpreter.documents.limits import MAX_KEPT_TEXT_BYTES, MAX_KEPT_TEXTS

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

FORMAT = b"MPRT1"
FOLDER = "texts"


class Kept:
    """A document read back from the cache: what ``loader.Document`` holds for a data text (its
    ``readings`` are always empty: a text with some is never kept)."""

    __slots__ = ("data", "positions", "file", "index", "line", "texts", "readings")

    def __init__(self, data: Any, positions: dict, file: str, index: int, line: int, texts: dict) -> None:
        self.data, self.positions, self.file, self.index, self.line = data, positions, file, index, line
        self.texts, self.readings = texts, ()


def _entry_path(file: str, raw: bytes) -> str:
    digest = cachefile.sha256(file.encode("utf-8", "surrogatepass") + b"\0" + raw).hexdigest()
    return os.path.join(cachefile.cache_root(), FOLDER, digest[:32] + ".bin")


def _kept(file: str, raw: bytes) -> list[Kept] | None:
    """The documents kept for ``raw`` read under the name ``file``; None when there are none."""
    # start-up: marshal loads only when a kept text is looked up
    import marshal

    body = cachefile.read_checked(_entry_path(file, raw), FORMAT, MAX_KEPT_TEXT_BYTES * 4)
    if body is None:
        return None
    try:
        stamp, kept_file, kept_raw, docs = marshal.loads(body)
        if stamp != cachefile.code_stamp() or kept_file != file or kept_raw != raw:
            return None
        return [Kept(data, positions, file, index, line, texts)
                for data, positions, index, line, texts in docs]
    except (ValueError, EOFError, TypeError):
        return None


def _keep(file: str, raw: bytes, docs: list[Any]) -> None:
    """Keep ``docs`` (as ``loader.load_text`` read them) for the next command, when they hold no
    reading to show and ``marshal`` holds them exactly; never an error."""
    if any(doc.readings for doc in docs):
        return
    value = (cachefile.code_stamp(), file, raw,
             tuple((doc.data, doc.positions, doc.index, doc.line, dict(doc.texts)) for doc in docs))
    body = cachefile.marshalled(value)
    if body is None or len(body) > MAX_KEPT_TEXT_BYTES * 4:
        return
    target = _entry_path(file, raw)
    cachefile.write_checked(target, FORMAT, body)
    _prune(os.path.dirname(target))


def _prune(folder: str) -> None:
    """Remove the oldest entries beyond ``MAX_KEPT_TEXTS``."""
    cachefile.prune(folder, lambda name: name.endswith(".bin"), MAX_KEPT_TEXTS)


def load_text(text: str | bytes, file: str) -> list[Any]:
    """``loader.load_text(text, file)``, the same documents and the same errors, from the cache
    when this text was read before under this name."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    use = cachefile.enabled() and len(raw) <= MAX_KEPT_TEXT_BYTES
    if use:
        docs = _kept(file, raw)
        if docs is not None:
            return docs
    # start-up: PyYAML loads only for a text that is not kept
    from interpreter.documents.loader import load_text as read

    found: list[Any] = read(text, file)
    if use:
        _keep(file, raw, found)
    return found


def load_file(path: str, *, max_bytes: int) -> list[Any]:
    """``loader.load_file(path, max_bytes=max_bytes)``: the same documents and the same errors. A
    regular file that opens and reads within ``max_bytes`` goes to ``load_text`` under the name
    ``loader.load_file`` gives it; anything else (no such file, a FIFO, too large) to
    ``loader.load_file`` itself, for its error."""
    data = read_regular(path, max_bytes)
    if data is not None:
        return load_text(data, os.fsencode(path).decode("utf-8", "backslashreplace"))
    # start-up: PyYAML loads only for a file that cannot be read here (its error is loader's)
    from interpreter.documents.loader import load_file as read

    found: list[Any] = read(path, max_bytes=max_bytes)
    return found


def read_regular(path: str, max_bytes: int) -> bytes | None:
    """The bytes of the regular file ``path`` (opened without blocking, as ``loader`` opens it)
    when it has at most ``max_bytes``; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError, TypeError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= max_bytes else None
    except OSError:
        return None
    finally:
        os.close(fd)
