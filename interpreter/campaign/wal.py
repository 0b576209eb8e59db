"""The write-ahead log (``-wal``) beside a campaign file, read without SQLite, to tell whether it
belongs to that file. SQLite applies whatever ``-wal`` has the file's name, and nothing in the
log names its database: a campaign file copied over another one whose last commands were still
in its log would silently get that other campaign's pages. So every campaign file carries a
random token in its header (``user_version``, from schema version 2 on), every transaction of
mprules writes it again (so that each commit in a log holds the header page with the token), and
before SQLite opens a file, the token of each committed header page in its log must be the
token of the file itself (read from the file, where the log cannot change it).

The log's format: a 32-byte header (magic, format version, page size, checkpoint sequence, two
salts, a checksum of the first 24 bytes), then frames of a 24-byte header (page number, the
database size in pages on a commit frame else 0, the two salts, a running checksum) and a page.
SQLite uses the frames up to the last commit frame before the first frame whose salts or
checksum do not match; the same rule is applied here."""
from __future__ import annotations

import os
import stat

from rules_dsl.frozen import Frozen
from rules_dsl.errors import EXIT_STATE, Location, MprError, define

FOREIGN_WAL = define(
    "MPR686", "{wal} beside {file} holds changes that were not written for {file} (most likely another "
              "campaign file's, left there when {file} was copied over or replaced): SQLite would mix "
              "them into {file}. Nothing was changed or deleted. Move {wal} and {shm} out of this "
              "folder (beside the campaign file they were written for, if you still have it, they "
              "bring back its last commands), then run the command again",
    "{file} の隣にある {wal} には、{file} のためではない変更が入っています（多くの場合、{file} を"
    "コピーや置き換えで入れ替えたときに残った別のキャンペーンファイルのものです）。このままでは SQLite が"
    "それを {file} に混ぜてしまいます。何も変更・削除していません。{wal} と {shm} をこのフォルダから"
    "移してから（書かれた元のキャンペーンファイルが残っていれば、その隣に置くと最後のコマンドが戻ります）、"
    "もう一度実行してください",
    exit_code=EXIT_STATE)

STRAY_JOURNAL = define(
    "MPR688", "{journal} beside {file} is a rollback journal, which mprules never writes (a campaign file "
              "keeps a write-ahead log): it is what another program left of an unfinished change, to "
              "{file} or to another file of that name. SQLite would roll it back into {file} and could "
              "destroy it. Nothing was changed or deleted. Move {journal} out of this folder, then run "
              "the command again",
    "{file} の隣にある {journal} はロールバックジャーナルです。mprules はこれを書きません（キャンペーン"
    "ファイルは先行書き込みログを使います）。別のプログラムが {file}、または同じ名前の別のファイルへの変更を"
    "終えずに残したものです。このままでは SQLite がそれを {file} に巻き戻して、ファイルを壊すおそれが"
    "あります。何も変更・削除していません。{journal} をこのフォルダから移してから、もう一度実行してください",
    exit_code=EXIT_STATE)

TOKEN_OFFSET = 60  # the database header's user_version: 4 bytes, big-endian
_HEADER = 32
_FRAME_HEADER = 24
_MAGIC = {0x377F0682: "<", 0x377F0683: ">"}  # the byte order of the checksum's words
_FORMAT = 3007000
_MASK = 0xFFFFFFFF


def new_token() -> int:
    """A random token for a new campaign file (never 0: 0 is a file made before tokens)."""
    return int.from_bytes(os.urandom(4), "big") % (2**31 - 1) + 1


def file_token(path: str) -> tuple[bool, int]:
    """Whether ``path`` is an SQLite file, and the token in its own header (0: none)."""
    try:
        with open(path, "rb") as stream:
            header = stream.read(TOKEN_OFFSET + 4)
    except OSError:
        return False, 0
    if not header.startswith(b"SQLite format 3\x00") or len(header) < TOKEN_OFFSET + 4:
        return False, 0
    return True, int.from_bytes(header[TOKEN_OFFSET:], "big")


class Commits(Frozen):
    """What SQLite would apply from a log: the number of committed transactions, the tokens of
    their header pages, and how many of them wrote no header page."""

    __slots__ = ("count", "tokens", "unnamed")
    _defaults = {"count": 0, "tokens": (), "unnamed": 0}
    count: int
    tokens: tuple[int, ...]
    unnamed: int

    def belong_to(self, token: int) -> bool:
        return self.unnamed == 0 and all(t == token for t in self.tokens)


def _checksum(data: bytes, order: str, s1: int, s2: int) -> tuple[int, int]:
    # start-up: struct (a C extension to load) only when a -wal is there to be read
    import struct

    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & _MASK
        s2 = (s2 + words[i + 1] + s1) & _MASK
    return s1, s2


def read_commits(wal: str, *, verify: bool) -> Commits:
    """The committed transactions of the log ``wal``; ``verify``: check every frame's checksum as
    SQLite does (without it, only the salts, which is enough when every token matches)."""
    try:
        fd = os.open(wal, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return Commits()
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return Commits()
        return _commits(fd, verify)
    finally:
        os.close(fd)


def _commits(fd: int, verify: bool) -> Commits:
    # start-up: struct (a C extension to load) only when a -wal is there to be read
    import struct

    header = os.pread(fd, _HEADER, 0)
    if len(header) < _HEADER:
        return Commits()
    magic, version, page_size, _, salt1, salt2, check1, check2 = struct.unpack(">8I", header)
    if magic not in _MAGIC or version != _FORMAT or page_size < 512 or page_size > 65536 \
            or page_size & (page_size - 1):
        return Commits()
    order = _MAGIC[magic]
    sums = _checksum(header[:24], order, 0, 0)
    if verify and sums != (check1, check2):
        return Commits()
    count = unnamed = 0
    tokens: list[int] = []
    pending: list[int] = []
    offset = _HEADER
    while True:
        size = _FRAME_HEADER + (page_size if verify else TOKEN_OFFSET + 4)
        frame = os.pread(fd, size, offset)
        if len(frame) < size:
            break
        page, commit, frame_salt1, frame_salt2, frame_check1, frame_check2 = struct.unpack(">6I", frame[:24])
        if page == 0 or (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        if verify:
            sums = _checksum(frame[:8] + frame[_FRAME_HEADER:], order, *sums)
            if sums != (frame_check1, frame_check2):
                break
        if page == 1:
            pending.append(int.from_bytes(frame[_FRAME_HEADER + TOKEN_OFFSET:_FRAME_HEADER + TOKEN_OFFSET + 4],
                                          "big"))
        if commit:
            count += 1
            unnamed += not pending
            tokens += pending
            pending = []
        offset += _FRAME_HEADER + page_size
    return Commits(count, tuple(tokens), unnamed)


def check_journal(path: str) -> None:
    """Refuse (``MPR688``, nothing changed or deleted) a rollback journal beside ``path`` that
    SQLite would play back into it: a ``-journal`` that is not empty and whose header is not
    zeroed (SQLite's "hot journal"). mprules keeps campaigns in WAL mode and never leaves one, so
    any such journal is another program's, or an old copy's."""
    journal = f"{path}-journal"
    try:
        fd = os.open(journal, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return
    except OSError:
        raise MprError(STRAY_JOURNAL, Location(path), file=path, journal=journal) from None
    try:
        hot = not stat.S_ISREG(os.fstat(fd).st_mode) or any(os.pread(fd, 28, 0))
    finally:
        os.close(fd)
    if hot and not _writing(path):
        raise MprError(STRAY_JOURNAL, Location(path), file=path, journal=journal)


_PENDING_BYTE = 0x40000000  # SQLite's lock bytes: PENDING, then RESERVED (os_unix.c)


def _writing(path: str) -> bool:
    """Whether another process holds SQLite's PENDING or RESERVED lock on ``path``: then the
    journal is that writer's own, live (``init`` replacing a campaign takes it out of WAL mode),
    and SQLite itself waits for it."""
    # start-up: fcntl only when a rollback journal is there
    import fcntl
    import struct

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        query = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, _PENDING_BYTE, 2, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        return struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK
    except (OSError, struct.error):
        return False
    finally:
        os.close(fd)


def check(path: str, *, replacing: bool = False) -> None:
    """Refuse (``MPR686``, nothing changed or deleted) a ``-wal`` beside ``path`` whose committed
    changes were not written for it. ``replacing``: ``path`` is about to be replaced by a new
    campaign (``init``), so a log with any committed change is another campaign's, unless ``path``
    is that campaign itself. A file without a token (made before tokens) is not checked."""
    check_journal(path)
    wal = f"{path}-wal"
    if not os.path.exists(wal):
        return
    sqlite, token = file_token(path)
    if (sqlite and token == 0) or not (sqlite or replacing):
        return  # made before tokens (nothing to compare), or no campaign (refused as such)
    commits = read_commits(wal, verify=False)
    if commits.count == 0 or (token and commits.belong_to(token)):
        return
    commits = read_commits(wal, verify=True)  # a torn frame at the end: SQLite ignores it too
    if commits.count and not (token and commits.belong_to(token)):
        raise MprError(FOREIGN_WAL, Location(path), file=path, wal=wal, shm=f"{path}-shm")
