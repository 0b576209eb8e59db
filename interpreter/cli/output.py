"""Printing for every verb: JSON (stable, UTF-8, exact fractions as strings), errors, colour,
standard output that is closed, full or a broken pipe reported as a coded error (exit 3), and the
files that options such as ``-o`` name, written whole or not at all."""
from __future__ import annotations

import errno
import os
import stat
import sys

from rules_dsl.errors import EXIT_STATE, Location, MprError, define
from rules_dsl.words import bilingual, define_word
from interpreter.reports.limits import MAX_OUTPUT_BYTES

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

STDOUT_LOST = define(
    "MPR050", "cannot write to standard output ({detail}); the output was lost",
    "標準出力に書き込めません（{detail}）。出力は失われました", exit_code=EXIT_STATE)
STDOUT_CLOSED = define(
    "MPR051", "standard output is closed: nothing was done (give the command somewhere to write)",
    "標準出力が閉じられています。何も実行していません（出力先を指定してください）",
    exit_code=EXIT_STATE)
STDOUT_LOST_COMMITTED = define(
    "MPR052", "cannot write to standard output ({detail}), but #{seq} {command} WAS saved in {file}: "
              "do not run it again (`mprules campaign log {file}` shows it)",
    "標準出力に書き込めません（{detail}）が、#{seq} {command} は {file} に保存済みです。"
    "もう一度実行しないでください（`mprules campaign log {file}` で確認できます）",
    exit_code=EXIT_STATE)

NOT_A_FILE_TO_WRITE = define(
    "MPR054", "{option} {file} is {what_en}, not a regular file: give the path of a file to write; "
              "nothing was written",
    "{option} に指定した {file} は{what_ja}で、通常のファイルではありません。書き込むファイルのパスを"
    "指定してください。何も書き込んでいません", exit_code=EXIT_STATE)

OUTPUT_IS_INPUT = define(
    "MPR070", "{option} {file} is {what[en]} this command reads: writing there would replace what it reads; "
              "give the path of another file; nothing was written",
    "{option} に指定した {file} は、このコマンドが読む{what[ja]}です。書き込むと読んだものを置き換えて"
    "しまいます。別のファイルのパスを指定してください。何も書き込んでいません", exit_code=EXIT_STATE)

TOO_MUCH_OUTPUT = define(
    "MPR071", "the result would print more than {limit} bytes: nothing was printed; ask for a smaller "
              "part of it",
    "結果を表示すると上限の {limit} バイトを超えます。何も表示していません。もっと小さな部分を求めてください",
    exit_code=1)

A_READ_FILE = define_word("cli.a_read_file", "a file", "ファイル")

_LOST = (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EBADF, errno.EFBIG)


class PipeClosed(Exception):
    """Standard output is a pipe whose reader has gone (``mprules ... | head``): the command ends
    with 0, as shells expect, its output dropped (a campaign command was saved all the same)."""


def print_json(data: Any) -> None:
    print(json_text(data), end="")


def json_text(data: Any) -> str:
    """What ``print_json`` prints (a final newline included), refused (MPR071) when too large."""
    # start-up: rules_dsl.plain loads only when --json asks for it; json only for what
    # plain.json_indented leaves to it
    from rules_dsl.plain import json_indented, jsonable

    refuse_huge_output(data)
    text = json_indented(data)  # data that is plain already (most is) is written as it is
    if text is None:
        plain = jsonable(data)
        text = json_indented(plain)
        if text is None:
            import json  # start-up: only for what json_indented is not sure of (a float that is not finite)

            text = json.dumps(plain, ensure_ascii=False, indent=2)
    return text + "\n"


def output_estimate(value: Any, limit: int) -> int:
    """About how many bytes printing ``value`` takes (JSON with indentation, the larger of the
    text forms), counted until ``limit`` is passed: a list that holds the same list 10,000 times
    is counted 10,000 times, as printing it would."""
    total, stack = 0, [(value, 0)]
    while stack and total <= limit:
        item, depth = stack.pop()
        total += 2 * depth + 4
        if isinstance(item, str):
            total += len(item) * 3
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2
        elif isinstance(item, dict):
            for key, sub in item.items():
                total += len(str(key)) * 3 + 4
                stack.append((sub, depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, depth + 1) for sub in item)
        else:
            total += 40  # a fraction, a float, a distribution's row
    return total


def refuse_huge_output(value: Any) -> None:
    """Refuse (MPR071, exit 1) before printing a value that would print more than
    ``MAX_OUTPUT_BYTES``; the estimate stops as soon as it is past the limit."""
    estimate = output_estimate(value, MAX_OUTPUT_BYTES)
    if estimate > MAX_OUTPUT_BYTES:
        raise MprError(TOO_MUCH_OUTPUT, Location(path="stdout"), limit=MAX_OUTPUT_BYTES)


def print_error(error: MprError, lang: str) -> None:
    loc = error.loc
    if loc is not None and loc.file:
        # start-up: the path style loads only when an error names a file
        from interpreter.documents.resources import shown_path

        loc = Location(shown_path(loc.file), loc.line, loc.column, loc.path)
    where = f"{loc}: " if loc and str(loc) else ""
    try:
        print(f"{where}{error.code} {error.message(lang)}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass  # stderr itself is gone: the exit status still says what happened


def error_json(error: MprError, lang: str) -> dict:
    """A refusal (no such path, unreadable...) in the shape of a finding of ``--format json``."""
    # start-up: interpreter.documents.resources loads only when an error is shown as JSON
    from interpreter.documents.resources import shown_path

    loc = error.loc or Location()
    return {"file": shown_path(loc.file) or None, "line": loc.line, "column": loc.column,
            "code": error.code, "severity": "error", "message": error.message(lang),
            "argument": loc.path, "exit": error.exit_code}


def print_refusal(error: MprError, lang: str) -> None:
    """A refusal as JSON on standard output, for ``--format json``: ``{"error": {file, line,
    column, code, severity, message, argument, exit}}`` (the fields of a ``validate`` finding), so
    a program reading the output gets a document either way; the message goes to stderr too."""
    try:
        print_json({"error": error_json(error, lang)})
        flush_stdout()
    except (OSError, ValueError, PipeClosed):
        pass  # standard output is gone: the message on stderr and the exit status still say it


def print_heard(lang: str) -> None:
    """On standard error, the warnings the command's data (inputs, characters, ``--var``,
    ``--param``) gave while it was read: values YAML readers read differently (MPR325)."""
    loader = sys.modules.get("interpreter.documents.loader")  # never imported just for this
    if loader is None:
        return
    try:
        for note in loader.heard(lang):
            argument = (note.file or "").startswith("-") and note.line == 1 and note.column == 1
            where = note.file if argument else ":".join(
                str(p) for p in (note.file, note.line, note.column) if p)
            print(f"{where}: {note.code} {note.message}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass  # stderr itself is gone


def colour_enabled(stream: Any = None) -> bool:
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def require_stdout() -> None:
    """Refuse to start when standard output is closed (``>&-``): what a command prints would
    vanish, and a campaign command would change the file without a word."""
    stream = sys.stdout
    if stream is None or stream.closed:
        raise MprError(STDOUT_CLOSED, Location(path="stdout"))
    if hasattr(stream, "reconfigure"):  # a file name that is not UTF-8 is shown with escapes
        stream.reconfigure(errors="backslashreplace")
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return  # a stream without a descriptor (a test capturing the output)
    try:
        os.fstat(fd)
    except OSError:
        raise MprError(STDOUT_CLOSED, Location(path="stdout")) from None


def is_lost_output(error: OSError) -> bool:
    """Whether ``error`` is standard output failing (full disk, broken pipe, closed)."""
    return error.errno in _LOST


def flush_stdout() -> None:
    """Write out what is buffered; raise ``OSError`` when standard output cannot take it."""
    if sys.stdout is not None:
        sys.stdout.flush()


def settle_stdout() -> None:
    """At exit: write out what is left, or drop it quietly when standard output is gone (the
    error, if any, was reported already)."""
    try:
        flush_stdout()
    except (OSError, ValueError):
        _silence_stdout()


def lost_output(error: OSError, committed: dict[str, Any] | None = None) -> MprError:
    """The coded error for output that could not be written, saying whether a campaign command
    was saved all the same (``committed``: ``{seq, command, file}``), so nobody applies it twice.
    Standard output is pointed at the null device, so that nothing more fails at exit."""
    _silence_stdout()
    if error.errno == errno.EPIPE:
        raise PipeClosed  # the reader went away (`| head`): not an error (exit 0)
    detail = os.strerror(error.errno) if error.errno else type(error).__name__
    if committed:
        return MprError(STDOUT_LOST_COMMITTED, Location(path="stdout"), detail=detail, **committed)
    return MprError(STDOUT_LOST, Location(path="stdout"), detail=detail)


def _silence_stdout() -> None:
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives until exit


def write_file(path: str, text: str, option: str, unwritable: str) -> None:
    """Write ``text`` (UTF-8) to the file ``path`` that the command-line ``option`` names, whole or
    not at all. Anything there that is not a regular file (a directory, a FIFO, a device) is
    refused (MPR054) and never opened; the text goes to a temporary file in the same folder,
    synced, then renamed over ``path`` (over the target of a symbolic link), so that a failure (a
    full disk, a kill) leaves the file as it was, or no file, never half of one. A file that cannot
    be written is ``unwritable`` (the command's own code; ``{file}`` and ``{reason}``)."""
    import tempfile  # only here: every command imports this module at start-up

    target = os.path.realpath(path)
    info = _target(target, path, option, unwritable)
    temp = None
    try:
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.",
                                    suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp, stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask())
        os.replace(temp, target)
        temp = None
    except OSError as error:
        raise _unwritable(unwritable, path, option, error) from None
    finally:
        if temp is not None:
            try:
                os.unlink(temp)
            except OSError:
                pass  # the file that could not be written leaves no temporary behind it if it can


def refuse_input(path: str, option: str, reads: Any, what: dict[str, str] | None = None) -> None:
    """Refuse (MPR070) an output ``path`` that is one of the files ``reads`` (what the command
    reads, or the campaign it works on with its ``-wal``, ``-shm`` and ``-journal``), by the
    file it names (a symbolic link or another spelling of the same path included)."""
    target = os.path.realpath(path)
    try:
        info = os.stat(target)
    except OSError:
        info = None
    for read in reads:
        same = os.path.realpath(read) == target
        if not same and info is not None:
            try:
                other = os.stat(read)
            except OSError:
                continue
            same = (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino)
        if same:
            raise MprError(OUTPUT_IS_INPUT, Location(path=option), option=option, file=path,
                           what=what or bilingual(A_READ_FILE))


def refuse_special_file(path: str, option: str, unwritable: str) -> None:
    """Refuse early, before any work, what ``write_file`` would refuse: a ``path`` that is a
    directory, a FIFO or a device."""
    _target(os.path.realpath(path), path, option, unwritable)


def _target(target: str, path: str, option: str, unwritable: str) -> os.stat_result | None:
    """What is at ``target`` now (``None``: nothing); anything but a regular file is refused."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _unwritable(unwritable, path, option, error) from None
    if not stat.S_ISREG(info.st_mode):
        # start-up: interpreter.documents.loader loads only when _target() runs
        from interpreter.documents.loader import file_kind

        what_en, what_ja = file_kind(info.st_mode)
        raise MprError(NOT_A_FILE_TO_WRITE, Location(path=option), option=option, file=path,
                       what_en=what_en, what_ja=what_ja)
    return info


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unwritable(message: str, path: str, option: str, error: OSError) -> MprError:
    return MprError(message, Location(path=option), file=path, reason=error.strerror or str(error))
