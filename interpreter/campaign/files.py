"""The campaign file as a file: opening it through SQLite, telling a campaign from other files
(and refusing anything but a regular file), the coded errors of the file, and swapping a finished
new campaign in place of an old one."""
from __future__ import annotations

import errno
import os
import stat

# start-up: the campaign modules use SQLite through this one name, the C module itself. The package
# `sqlite3` is that module plus the DB-API's date and time helpers, whose `datetime` import is
# two thirds of its cost (6 of 10 million instructions) and which a campaign never uses (it stores
# text and integers). The classes, functions and exceptions are the very same objects.
try:
    import _sqlite3 as sqlite3
except ImportError:  # a Python whose SQLite module is not CPython's C one
    import sqlite3  # type: ignore[no-redef]

from rules_dsl.errors import EXIT_STATE, Location, MprError, define
from rules_dsl.words import bilingual, define_word
from interpreter.campaign.limits import (CAMPAIGN_BUSY_TIMEOUT_SECONDS, MAX_CAMPAIGN_FILE_BYTES,
                                        QUICK_CHECK_MAX_BYTES)

from interpreter.campaign import wal

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

NOT_SQLITE = define(
    "MPR620", "{file} is not a campaign: not an SQLite database or damaged ({detail}); it was left unchanged",
    "{file} はキャンペーンファイルではありません: SQLite データベースでないか破損しています（{detail}）。ファイルは変更していません",
    exit_code=EXIT_STATE)
FOREIGN = define(
    "MPR621", "{file} is an SQLite database but not an mprules campaign; it was left unchanged",
    "{file} は SQLite データベースですが mprules のキャンペーンではありません。ファイルは変更していません",
    exit_code=EXIT_STATE)
NEWER = define(
    "MPR622", "{file} was written by a newer mprules (schema version {version}; this one knows up to {known}): "
              "upgrade mprules; the file was left unchanged",
    "{file} は新しい mprules で作成されています（スキーマ版 {version}、この版は {known} まで対応）。"
    "mprules を更新してください。ファイルは変更していません",
    exit_code=EXIT_STATE)
MISSING = define(
    "MPR623", "no campaign file {file} ({how[en]})",
    "キャンペーンファイル {file} がありません（{how[ja]}）",
    exit_code=EXIT_STATE)
EXISTS = define(
    "MPR624", "{file} already exists; {how[en]}",
    "{file} は既に存在します。{how[ja]}")
# What to do, in the library's words (the command line words them with its own commands and flags).
HOW_CREATE = define_word("campaign.how.create", "create one first", "先に作成してください")
HOW_REPLACE = define_word("campaign.how.replace", "it is replaced only when replacing is asked for",
                          "置き換えを指示したときだけ置き換えます")
BUSY = define(
    "MPR625", "{file} is busy: another command is writing it (waited {seconds} s); nothing was changed, try again",
    "{file} は他のコマンドが書き込み中です（{seconds} 秒待ちました）。何も変更していません。もう一度実行してください",
    exit_code=EXIT_STATE)
NOT_SAVED = define(
    "MPR629", "{file}: the command could not be saved ({detail}); the campaign was left as it was before it",
    "{file}: コマンドの結果を保存できませんでした（{detail}）。キャンペーンは実行前の状態のままです",
    exit_code=EXIT_STATE)
IO_ERROR = define(
    "MPR626", "cannot use campaign file {file}: {detail}",
    "キャンペーンファイル {file} を使用できません: {detail}", exit_code=EXIT_STATE)
NOT_A_FILE = define(
    "MPR680", "{file} is not a regular file (a directory, a FIFO or a device): a campaign is one file; "
              "nothing was changed",
    "{file} は通常のファイルではありません（ディレクトリ、FIFO、デバイスなど）。キャンペーンは1つのファイルです。"
    "何も変更していません", exit_code=EXIT_STATE)

NOT_UTF8 = define(
    "MPR685", "the {what} {path} has a name that is not UTF-8: a campaign keeps it as text; rename it",
    "{what} {path} の名前が UTF-8 ではありません。キャンペーンはこれを文字列として保存します。名前を変えてください",
    exit_code=EXIT_STATE)

TOO_LARGE = define(
    "MPR689", "{file}: this command would make the campaign file larger than its limit of {limit} bytes "
              "(it is {size} bytes now); nothing was changed. Reading and exporting still work: export "
              "the campaign and start a new one from the export, whose journal begins again",
    "{file}: このコマンドでキャンペーンファイルが上限の {limit} バイトを超えてしまいます（いまは {size} "
    "バイト）。何も変更していません。読み出しと書き出しはこれまでどおりできます。キャンペーンを書き出して、"
    "その書き出しから新しいキャンペーンを始めてください（記録はそこから始まります）",
    exit_code=EXIT_STATE)

APPLICATION_ID = 0x4D505243  # "MPRC": marks an mprules campaign among SQLite files
SQLITE_HEADER = b"SQLite format 3\x00"


def shown_path(path: str) -> str:
    """A path as text that can be stored and printed, even when it is not UTF-8 (escaped)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def utf8_path(path: str, what: str) -> str:
    """A path that must be kept as text (the pinned ruleset): refused when it is not UTF-8."""
    if shown_path(path) != path:
        raise MprError(NOT_UTF8, Location(path=shown_path(path)), what=what, path=shown_path(path))
    return path


def file_state(path: str) -> tuple[int, int, int, bool] | None:
    """What changes when a command writes the file: its inode, size and modification time, and
    whether a -wal is beside it (None when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, os.path.exists(f"{os.fspath(path)}-wal")


def connect_readonly(path: str) -> sqlite3.Connection:
    """A connection that never writes, nor leaves a -wal or -shm behind: ``immutable`` when no
    command is writing (no -wal: the last writer folded it into the file when it closed), else
    read-only through the WAL the writer keeps."""
    try:
        logged = os.stat(f"{os.fspath(path)}-wal").st_size > 0
    except OSError:
        logged = False
    if logged:
        return connect(path, "ro")
    return connect(path, "ro&immutable=1")  # an empty -wal holds nothing (a writer stopped at opening it)


def busy(path: str) -> MprError:
    return MprError(BUSY, Location(path), file=path, seconds=CAMPAIGN_BUSY_TIMEOUT_SECONDS)


_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~")


def _uri_path(path: str) -> str:
    """The path as SQLite's ``file:`` URI wants it: every byte but the unreserved ones and ``/``
    percent-encoded (so ``?``, ``#``, ``%`` and any non-ASCII name stay part of the path), as
    ``urllib.parse.quote`` does; that module is not loaded for it, since every campaign command
    opens a file."""
    return "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in os.fsencode(os.path.abspath(path)))


def connect(path: str, mode: str) -> sqlite3.Connection:
    uri = f"file:{_uri_path(path)}?mode={mode}"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=CAMPAIGN_BUSY_TIMEOUT_SECONDS)
    conn.execute("PRAGMA foreign_keys = ON")
    # WAL with synchronous FULL: a committed command survives a killed process and a power cut.
    conn.execute("PRAGMA synchronous = FULL")
    if not mode.startswith("ro"):  # a write may not grow the file past its limit (SQLITE_FULL)
        conn.execute(f"PRAGMA max_page_count = {limit_pages(conn)}")
    return conn


def limit_pages(conn: sqlite3.Connection) -> int:
    """The pages of ``MAX_CAMPAIGN_FILE_BYTES`` at the file's page size."""
    return MAX_CAMPAIGN_FILE_BYTES // conn.execute("PRAGMA page_size").fetchone()[0]


_ROOM_BYTES = 1 << 20  # less free space than this where the file is: the disk is full


def disk_full(path: str) -> bool:
    """Whether the file system holding ``path`` has (almost) no room left."""
    try:
        info = os.statvfs(os.path.dirname(os.path.abspath(path)) or ".")
    except (OSError, AttributeError):
        return False
    return info.f_bavail * info.f_frsize < _ROOM_BYTES


def too_large(path: str) -> MprError:
    try:
        size = os.stat(path).st_size
    except OSError:
        size = MAX_CAMPAIGN_FILE_BYTES
    return MprError(TOO_LARGE, Location(path), file=path, limit=MAX_CAMPAIGN_FILE_BYTES, size=size)


def at_limit(conn: sqlite3.Connection) -> bool:
    """Whether a write that SQLite refused as full met the file's size limit, not a full disk:
    the limit is the connection's own (not one a test set) and its pages are used up."""
    try:
        limit = limit_pages(conn)
        return conn.execute("PRAGMA max_page_count").fetchone()[0] == limit
    except sqlite3.Error:
        return False


def sqlite_error(path: str, exc: sqlite3.Error) -> MprError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return busy(path)
    if _io_error(exc) and disk_full(path):
        return MprError(NOT_SAVED, Location(path), file=path, detail="the disk is full")
    return MprError(IO_ERROR, Location(path), file=path, detail=text)


def _io_error(exc: sqlite3.Error) -> bool:
    """SQLITE_IOERR (any of its extended codes), SQLITE_FULL or SQLITE_CANTOPEN."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in (10, 13, 14) or "disk I/O" in str(exc)


def not_saved(path: str, exc: sqlite3.Error, conn: sqlite3.Connection | None = None) -> MprError:
    """A write that failed inside a command's transaction (rolled back): busy, the file's size
    limit (``conn``: the connection that wrote), or not saved."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return busy(path)
    code = getattr(exc, "sqlite_errorcode", None)
    if (code == 13 or "full" in text) and conn is not None and at_limit(conn) and not disk_full(path):
        return too_large(path)
    if _io_error(exc) and disk_full(path):
        text = "the disk is full"
    elif code == 13 or "full" in text:  # SQLITE_FULL
        text = "the disk is full"
    elif code in (778, 1034, 1546):  # SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE
        text = "the disk could not be written: it is full, or a file size limit was reached"
    return MprError(NOT_SAVED, Location(path), file=path, detail=text)


def os_error(path: str, exc: OSError) -> MprError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return MprError(NOT_SAVED, Location(path), file=path, detail="the disk is full")
    return MprError(IO_ERROR, Location(path), file=path, detail=exc.strerror or str(exc))


def identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def existing(path: str) -> os.stat_result | None:
    """What is at ``path`` now (``None``: nothing); anything but a regular file is refused."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(path, exc) from None
    if not stat.S_ISREG(info.st_mode):
        raise MprError(NOT_A_FILE, Location(path), file=path)
    return info


def fsync(path: str, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def swap(temp: str, path: str, old: os.stat_result | None,
         connect: Callable[[str, str], sqlite3.Connection]) -> None:
    """Rename the finished ``temp`` over ``path``. An old SQLite campaign is first taken out of
    WAL mode (its WAL folded into the file, so no -wal of it can be read with the new file) and
    locked exclusively, so that no other command reads or writes it during the swap; a file that
    is not SQLite, or an SQLite file too damaged to open, loses its stray -wal and -shm.

    Busy (another command holds the old file, or another ``init --force`` replaced it since
    ``old`` was seen): the old one is left as it was. Any other error of SQLite on a file that
    is still the old one is raised as it is (the caller reports it as not saved): only a file
    SQLite calls damaged is replaced without its lock, since removing the -wal and -shm of a
    file that other commands have open is what would damage it."""
    guard = None
    if old is not None and is_sqlite(path):
        try:
            guard = connect(path, "rw")
            mode = guard.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            if str(mode).lower() != "delete":
                raise busy(path)
            guard.execute("BEGIN EXCLUSIVE")
            if identity(path) != (old.st_dev, old.st_ino):
                raise busy(path)  # another init --force replaced it meanwhile
        except sqlite3.Error as exc:
            if guard is not None:
                close_guard(guard, restore_wal=True)
                guard = None
            if "locked" in str(exc) or "busy" in str(exc) or identity(path) != (old.st_dev, old.st_ino):
                raise busy(path) from None
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _DAMAGED:
                raise
            # damaged: nothing to keep; replaced below like any other file
        except BaseException:
            if guard is not None:
                close_guard(guard, restore_wal=True)
            raise
    if guard is None:
        for suffix in ("-wal", "-shm"):
            try:
                os.unlink(path + suffix)
            except FileNotFoundError:
                pass
    try:
        os.replace(temp, path)
        fsync(os.path.dirname(os.path.abspath(path)), directory=True)
    finally:
        if guard is not None:
            close_guard(guard, restore_wal=False)


_DAMAGED = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB: the primary result codes


def close_guard(guard: sqlite3.Connection, *, restore_wal: bool) -> None:
    try:
        if guard.in_transaction:
            guard.execute("ROLLBACK")
        if restore_wal:
            guard.execute("PRAGMA journal_mode = WAL")
    except sqlite3.Error:
        pass  # closing is what matters; SQLite undoes an open transaction when it closes
    guard.close()


def is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as stream:
            return stream.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def inspect(path: str, known_version: int) -> int:
    """Refuse, without writing anything, a file that is not a campaign this mprules can open;
    its schema version."""
    version, conn = examine(path, known_version)
    conn.close()
    return version


def examine(path: str, known_version: int) -> tuple[int, sqlite3.Connection]:
    """``inspect``, and the read-only connection the file was examined through (the caller closes
    it): a command that only reads goes on with it rather than open the file again."""
    if not os.path.isfile(path):
        raise MprError(MISSING, Location(path), file=path, how=bilingual(HOW_CREATE))
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as stream:
            header = stream.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise MprError(IO_ERROR, Location(path), file=path, detail=exc.strerror or str(exc)) from None
    if header != SQLITE_HEADER:
        raise MprError(NOT_SQLITE, Location(path), file=path, detail="no SQLite header")
    wal.check(path)  # before SQLite reads a -wal that another campaign file left
    conn = None
    try:
        conn = connect_readonly(path)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id != APPLICATION_ID:
            raise MprError(FOREIGN, Location(path), file=path)
        if size <= QUICK_CHECK_MAX_BYTES:  # larger: SQLite finds damage in what it reads
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise MprError(NOT_SQLITE, Location(path), file=path, detail=check)
        version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        if not isinstance(version, int) or version < 1:
            raise MprError(NOT_SQLITE, Location(path), file=path, detail="no schema version")
        if version > known_version:
            raise MprError(NEWER, Location(path), file=path, version=version, known=known_version)
    except BaseException as exc:
        if conn is not None:
            conn.close()
        if not isinstance(exc, sqlite3.DatabaseError):
            raise
        if "locked" in str(exc) or "busy" in str(exc):
            raise busy(path) from None
        if _io_error(exc) and disk_full(path):
            raise MprError(NOT_SAVED, Location(path), file=path, detail="the disk is full") from None
        raise MprError(NOT_SQLITE, Location(path), file=path, detail=str(exc)) from None
    return version, conn


def integrity_check(path: str) -> list[str]:
    """SQLite's full ``integrity_check`` of the file (every page, index and constraint), read
    only: the problems it finds (none: ``[]``)."""
    conn = connect_readonly(path)
    try:
        found = [row[0] for row in conn.execute("PRAGMA integrity_check(100)")]
    finally:
        conn.close()
    return [] if found == ["ok"] else found


_PID_TEMP = None  # the pattern of a temporary campaign file (compiled when first used)


def clean_temporaries(path: str) -> list[str]:
    """Remove what killed writers left of a new campaign for ``path`` (``Store.build``'s
    ``.NAME.PID.XXXXXXXX.tmp`` with its ``-wal``, ``-shm`` and ``-journal``) when that process is
    gone; the names removed. A temporary of a process still running is left alone."""
    global _PID_TEMP
    folder = os.path.dirname(os.path.abspath(path)) or "."
    prefix = f".{os.path.basename(path)}."
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and ".tmp" in n]
    except OSError:
        return []
    if not names:
        return []
    if _PID_TEMP is None:
        # start-up: re only when a temporary is there
        import re

        _PID_TEMP = re.compile(r"(\d+)\.[0-9a-f]{8}\.tmp(?:-wal|-shm|-journal)?")
    removed = []
    for name in names:
        match = _PID_TEMP.fullmatch(name[len(prefix):])
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(name)
        except OSError:
            pass  # another command removed it, or the folder is read-only
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # another user's process, or a number no process has: leave it alone
    return True
