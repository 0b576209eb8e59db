"""YAML rule documents as plain data with the file position of every value and key.

Conventions: positions are 1-based, columns in characters; a key is always the text written
(``1:`` and ``no:`` give the keys "1" and "no"); dates stay text; ``.nan`` and ``.inf`` are
refused; merge keys ``<<`` apply (written keys win); empty documents are skipped. Files are
opened without blocking and must be regular files (a FIFO or a device is refused, never waited on).
Every file and value is read by YAML 1.2's core schema (``yaml_readings``): ``yes`` and ``1:30`` are
text, ``014`` is 14, ``0o14`` is 12. A plain value that YAML 1.1 or check-jsonschema reads differently
is kept in ``Document.readings``; ``reading_notes`` words them as warnings (MPR325) and ``heed`` hands a
data file's (inputs, characters, ``--var``, ``--param``) to the command, which prints them.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rules_dsl.errors import EXIT_STATE, Diagnostic, Location, MprError, define, diagnostic
from interpreter.documents.limits import MAX_RULE_FILE_BYTES, MAX_YAML_DEPTH
from rules_dsl.words import define_word, word

from interpreter.documents import yaml_lines
from interpreter.documents.typing_mistakes import typing_mistake
from interpreter.documents.yaml_events import DEPTH, KEY, VERSION, Builder, Built, Path_, Position
from interpreter.documents.yaml_readings import UNREADABLE as REFUSED
from interpreter.documents.yaml_readings import Reading

__all__ = ["KEY", "Document", "load_file", "load_text", "locate"]

UNREADABLE = define("MPR200", "cannot read {file}: {reason}", "{file} を読めません: {reason}",
                    exit_code=EXIT_STATE)
TOO_LARGE = define("MPR201", "the file has {size} bytes, more than the limit of {limit}",
                   "ファイルが {size} バイトあり、上限 {limit} バイトを超えています")
BAD_UTF8 = define("MPR202", "invalid UTF-8 (byte 0x{byte}): save the file as UTF-8",
                  "UTF-8 として不正なバイト 0x{byte} があります。UTF-8 で保存してください")
SHIFT_JIS = define("MPR203", "invalid UTF-8 (byte 0x{byte}): the file looks like Shift_JIS/CP932;"
                   " save it as UTF-8",
                   "UTF-8 として不正なバイト 0x{byte} があります。Shift_JIS/CP932 で保存されて"
                   "いるようです。UTF-8 で保存し直してください")
CONTROL = define("MPR204", "control character {char} is not allowed in a YAML file",
                 "YAML ファイルに制御文字 {char} は使えません")
TAB = define("MPR205", "a tab is used for indentation: indent with spaces",
             "インデントにタブが使われています。空白でインデントしてください")
SYNTAX = define("MPR206", "YAML syntax error: {problem_en}; {hint_en}",
                "YAML の構文エラー: {problem_ja}。{hint_ja}")
NOT_REGULAR = define("MPR220", "{file} is {what_en}, not a regular file: give the path of a file",
                     "{file} は{what_ja}で、通常のファイルではありません。ファイルのパスを指定してください",
                     exit_code=EXIT_STATE)
READ_DIFFERENTLY = define(
    "MPR325", "{text} is read as {value_en} (YAML 1.2, as editors read it), but {others_en}: to be "
    "read alike everywhere, write {forms_en}",
    "{text} は {value_ja} と読まれます（YAML 1.2。エディタと同じ）が、{others_ja}。どこでも同じに"
    "読まれるよう、{forms_ja} と書いてください", severity="warning")
SECOND_DOCUMENT = define("MPR222", "{file} holds {count} YAML documents (---); it must hold one",
                         "{file} には YAML ドキュメントが {count} 個あります（---）。1つだけにしてください")

_KINDS = ((stat.S_ISFIFO, define_word("file.fifo", "a FIFO (named pipe)", "名前付きパイプ（FIFO）")),
          (stat.S_ISCHR, define_word("file.character_device", "a character device", "キャラクタデバイス")),
          (stat.S_ISBLK, define_word("file.block_device", "a block device", "ブロックデバイス")),
          (stat.S_ISSOCK, define_word("file.socket", "a socket", "ソケット")),
          (stat.S_ISDIR, define_word("file.directory", "a directory", "ディレクトリ")))
_NOT_A_FILE = define_word("file.other", "not a file", "ファイル以外")

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NON_PRINTABLE = re.compile(
    "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
# the ASCII characters ``_NON_PRINTABLE`` lets through (an ASCII text is checked by ``translate``)
_PRINTABLE_ASCII = bytes([9, 10, 13, *range(0x20, 0x7F)])
_JAPANESE = re.compile("[\u3040-\u30ff\u4e00-\u9fff\uff01-\uff9f]")
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


@dataclass(frozen=True)
class Document:
    """One YAML document of a file.

    ``positions`` maps every path inside ``data`` (the root is ``()``) to (file, line, column),
    1-based, columns in characters; ``positions[(*path, KEY)]`` is the position of the key.
    ``index`` counts the documents of the file from 0 (empty ones included); ``line`` is where
    the document's content starts. ``texts`` keeps the written text of each plain scalar that
    YAML read as a number, a boolean or null (``014`` -> 14, ``true``, ``~``); ``readings`` the plain
    values another YAML reader reads differently, with their positions, in file order.
    """

    data: Any
    positions: dict[Path_, Position]
    file: str
    index: int
    line: int
    texts: dict[Path_, str] = field(default_factory=dict, compare=False, repr=False)
    readings: tuple[tuple[Position, Reading], ...] = field(default=(), compare=False, repr=False)
    nodes: int = field(default=0, compare=False, repr=False)  # its values, aliases expanded
    cost: int = field(default=0, compare=False, repr=False)  # the same weighted by depth (DEEP)

    def loc(self, *path: str | int) -> Location:
        """Where ``data[path]`` is written, or its nearest located parent."""
        return locate(self.positions, path, self.file)

    def key_loc(self, *path: str | int) -> Location:
        """Where the key of ``data[path]`` is written (the value's position when it has none)."""
        pos = self.positions.get((*path, KEY))
        if pos is None:
            return self.loc(*path)
        return Location(pos[0], pos[1], pos[2], _dotted(path))


def locate(positions: dict[Path_, Position], path: Path_, file: str | None = None) -> Location:
    """The position of ``path`` in ``positions`` or of its nearest located parent."""
    probe = tuple(path)
    while True:
        pos = positions.get(probe)
        if pos is not None:
            return Location(pos[0], pos[1], pos[2], _dotted(path))
        if not probe:
            return Location(file, None, None, _dotted(path))
        probe = probe[:-1]


def _dotted(path: Path_) -> str | None:
    return ".".join(str(part) for part in path) or None


def load_file(path: str | Path, *, max_bytes: int = MAX_RULE_FILE_BYTES,
              budget: tuple[int, int] | None = None) -> list[Document]:
    """The documents of a YAML file; a file over ``max_bytes`` is refused before it is read
    (``budget``: as for ``load_text``)."""
    name = _shown(path)
    try:
        with open_regular(path) as stream:
            size = _size(stream)
            if size is not None and size > max_bytes:
                raise MprError(TOO_LARGE, Location(name, 1, 1), size=size, limit=max_bytes)
            data = stream.read(max_bytes + 1)
    except OSError as exc:
        raise MprError(UNREADABLE, Location(name), file=name,
                       reason=exc.strerror or type(exc).__name__) from None
    if len(data) > max_bytes:
        raise MprError(TOO_LARGE, Location(name, 1, 1), size=f"> {max_bytes}", limit=max_bytes)
    return load_text(data, name, budget=budget)


def _shown(path: str | Path) -> str:
    """A file name as text, even when it is not UTF-8 (its bytes shown as escapes)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def file_kind(mode: int) -> tuple[str, str]:
    """What a file that is not a regular file is (``st_mode``), in English and in Japanese."""
    what = next((w for test, w in _KINDS if test(mode)), _NOT_A_FILE)
    return word(what, "en"), word(what, "ja")


def open_regular(path: str | Path) -> Any:
    """``open(path, "rb")`` that never blocks on a FIFO and refuses anything that is not a
    regular file (FIFO, device, socket, directory) with a coded error."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = file_kind(mode)
            raise MprError(NOT_REGULAR, Location(_shown(path)), file=_shown(path),
                           what_en=what[0], what_ja=what[1])
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


_QUOTE_HINT = define_word(
    "yaml.hint.quote", "a text holding ': ', ' #', ',', brackets or starting with a mark "
    "(@ ` * & ! % |) goes in quotes: title: '表: 裏'",
    "「: 」「 #」「,」やかっこを含む文字列、記号（@ ` * & ! % |）で始まる文字列は引用符で囲んでください"
    "（例: title: '表: 裏'）")
_INDENT_HINT = define_word(
    "yaml.hint.indent", "line the keys of one mapping up with the same spaces; a text goes in quotes",
    "同じマッピングのキーは同じ数の空白で字下げしてください。文字列なら引用符で囲んでください")
_CLOSE_HINT = define_word("yaml.hint.close", "close the quote or bracket that is still open",
                          "閉じていない引用符かかっこを閉じてください")
_EXTRA_HINT = define_word("yaml.hint.extra", "remove what follows (a closing bracket too many?)",
                          "後ろの余分な文字（多すぎる閉じかっこなど）を消してください")
_ESCAPE_HINT = define_word("yaml.hint.escape", "for a backslash as written, use single quotes: 'a\\b'",
                           "\\ をそのまま書くならシングルクォートで囲んでください（'a\\b'）")
# PyYAML's (and libyaml's) problem -> the words of MPR206 and its hint
_PROBLEMS = (
    ("expected ',' or", define_word(
        "yaml.problem.flow", "a ',' or a closing bracket was expected in {{ }} or [ ]",
        "{{ }} や [ ] の中で「,」か閉じかっこがありません"), _QUOTE_HINT),
    ("mapping values are not allowed", define_word(
        "yaml.problem.colon", "': ' cannot be written here", "ここに「: 」は書けません"), _QUOTE_HINT),
    ("cannot start any token", define_word(
        "yaml.problem.start", "a value cannot begin with this mark", "この記号で値を始めることはできません"),
     _QUOTE_HINT),
    ("unknown escape character", define_word(
        "yaml.problem.escape", "an escape (\\) double quotes do not know",
        "ダブルクォートの中に使えないエスケープ（\\）があります"), _ESCAPE_HINT),
    ("end of stream", define_word(
        "yaml.problem.end", "the file ends inside a quote or a bracket",
        "引用符かかっこが閉じないままファイルが終わっています"), _CLOSE_HINT),
    ("expected '-' indicator", define_word(
        "yaml.problem.dash", "a list item ('- ') was expected at this indentation",
        "この字下げの位置にはリストの「- 」が必要です"), _INDENT_HINT),
    ("block sequence entries are not allowed", define_word(
        "yaml.problem.sequence", "a list item ('- ') cannot begin here",
        "ここでリストの「- 」は始められません"), _INDENT_HINT),
    ("did not find expected key", define_word(
        "yaml.problem.key", "a key was expected here: the indentation does not line up",
        "ここにはキーが必要です（字下げがそろっていません）"), _INDENT_HINT),
    ("expected <block end>", define_word(
        "yaml.problem.block", "the indentation does not line up", "字下げがそろっていません"),
     _INDENT_HINT),
    ("could not find expected ':'", define_word(
        "yaml.problem.no_colon", "the ':' after a key was not found", "キーの後の「:」が見つかりません"),
     _QUOTE_HINT),
    ("<document start>", define_word(
        "yaml.problem.after_end", "something follows the end of the document (one closing bracket "
        "too many?)", "文書の終わりの後に文字があります（閉じかっこが多いなど）"), _EXTRA_HINT),
    ("did not find expected node content", define_word(
        "yaml.problem.no_value", "a value was expected here", "ここには値が必要です"), _QUOTE_HINT),
    ("expected comment or line break", define_word(
        "yaml.problem.trailing", "something follows the value on its line",
        "値の後に余分な文字があります"), _QUOTE_HINT),
)
_UNKNOWN_PROBLEM = define_word("yaml.problem.other", "{problem}", "YAML として読めません（{problem}）")


def syntax_args(problem: str) -> dict[str, str]:
    """The arguments of MPR206 for PyYAML's ``problem``: its words and a hint, in both languages."""
    words, hint = next(((w, h) for key, w, h in _PROBLEMS if key in problem),
                       (_UNKNOWN_PROBLEM, _QUOTE_HINT))
    return {f"{part}_{lang}": word(item, lang).format(problem=problem)
            for lang in _LANGS for part, item in (("problem", words), ("hint", hint))}


_TEXT = define_word("reading.text", "the text {shown}", "文字列 {shown}")
_READS = define_word("reading.reads", "{readers} {verb} it as {value}", "{readers} では {value}")
_REFUSES = define_word("reading.refuses", "{readers} cannot read it", "{readers} では読めません")
_AND = define_word("reading.and", " and ", "、")
_END = define_word("reading.end", "", " と読まれます")
_PARTS = define_word("reading.parts", "; ", "。")
_QUOTED = define_word("reading.quoted", "'{text}' in quotes for the text",
                      "文字列なら引用符で囲んで '{text}'")
_NUMBER = define_word("reading.number", ", or {plain} for the number", "、数値なら {plain}")
_BOOL = define_word("reading.bool", ", or {plain} for true/false", "、真偽値なら {plain}")
_READER_NAMES = {"yaml11": "YAML 1.1", "check-jsonschema": "check-jsonschema"}
_LANGS = ("en", "ja")


def _shown_value(value: Any, lang: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return word(_TEXT, lang).format(shown=f"'{value}'")
    return repr(value)


def _others(reading: Reading, lang: str) -> str:
    """``YAML 1.1 and check-jsonschema read it as 3`` / ``YAML 1.1、check-jsonschema では 3 と読まれます``."""
    groups: list[tuple[list[str], Any]] = []
    for name, value in reading.others:
        group = next((g for g in groups if g[1] is value or (
            type(g[1]) is type(value) and g[1] == value)), None)
        if group is None:
            groups.append(([_READER_NAMES.get(name, name)], value))
        else:
            group[0].append(_READER_NAMES.get(name, name))
    joint = word(_AND, lang)
    read = [word(_READS, lang).format(readers=joint.join(names), value=_shown_value(value, lang),
                                      verb="reads" if len(names) == 1 else "read")
            for names, value in groups if value is not REFUSED]
    refused = [word(_REFUSES, lang).format(readers=joint.join(names))
               for names, value in groups if value is REFUSED]
    parts = ([joint.join(read) + word(_END, lang)] if read else []) + refused
    return word(_PARTS, lang).join(parts)


def reading_args(reading: Reading) -> dict[str, Any]:
    """The arguments of MPR325 for ``reading``, in both languages."""
    args: dict[str, Any] = {"text": reading.text}
    for lang in _LANGS:
        args[f"value_{lang}"] = _shown_value(reading.value, lang)
        args[f"others_{lang}"] = _others(reading, lang)
        forms = word(_QUOTED, lang).format(text=reading.text)
        if reading.plain:
            forms += word(_BOOL if reading.plain in ("true", "false") else _NUMBER, lang).format(
                plain=reading.plain)
        args[f"forms_{lang}"] = forms
    return args


def reading_notes(doc: "Document", lang: str = "en", skip: frozenset = frozenset()
                  ) -> list[Diagnostic]:
    """MPR325 for every plain value of ``doc`` that another YAML reader reads differently (not at
    the positions ``skip`` holds: (line, column) pairs already reported)."""
    return [diagnostic(READ_DIFFERENTLY, Location(pos[0], pos[1], pos[2]), lang,
                       **reading_args(reading))
            for pos, reading in doc.readings if (pos[1], pos[2]) not in skip]


_HEARD: list[tuple[Position, Reading]] = []
MAX_HEARD = 100


def heed(doc: "Document | None") -> None:
    """Keep the readings of a data document (an input, characters, ``--var``, ``--param``) for
    the command to show as warnings (``heard``)."""
    if doc is not None:
        for item in doc.readings:
            if len(_HEARD) < MAX_HEARD and item not in _HEARD:
                _HEARD.append(item)


def heard(lang: str = "en") -> list[Diagnostic]:
    """The warnings ``heed`` kept since the last call, in the order read; they are forgotten."""
    notes = [diagnostic(READ_DIFFERENTLY, Location(pos[0], pos[1], pos[2]), lang,
                        **reading_args(reading)) for pos, reading in _HEARD]
    _HEARD.clear()
    return notes


def single_document(docs: list["Document"], file: str) -> "Document | None":
    """The one document of a data file (``None`` if it is empty); a second one is an error."""
    if len(docs) > 1:
        raise MprError(SECOND_DOCUMENT, Location(file, docs[1].line, 1), file=file, count=len(docs))
    return docs[0] if docs else None


def _size(stream: Any) -> int | None:
    info = os.fstat(stream.fileno())
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def load_text(text: str | bytes, file: str = "<input>", *, loader: type | None = None,
              budget: tuple[int, int] | None = None, stepwise: bool = False) -> list[Document]:
    """The documents of a YAML text (bytes must be UTF-8; a BOM is fine).

    Empty documents (a comment-only file, a trailing ``---``) are skipped. ``loader`` picks
    PyYAML's loader class for the event stream (default: the C loader when present).
    ``budget`` is (values left, whole) of a bound over many files (MPR970 past it).
    Without ``loader`` and ``stepwise``, ``yaml_lines.read`` reads the text when it is of the shapes
    it reads exactly (most rule files), else the event stream does. ``stepwise`` hands every event
    to ``Builder.feed`` one by one, the way the short path of ``Builder.run`` and the line reader
    are checked against (the same documents and errors, only slower).
    """
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), file)
    if text.startswith("\ufeff"):
        text = text[1:]
    bad = None if text.isascii() and not text.encode().translate(None, _PRINTABLE_ASCII) \
        else _NON_PRINTABLE.search(text)
    if bad:
        line, column = _line_col(text, bad.start())
        raise MprError(CONTROL, Location(file, line, column), char=f"U+{ord(bad.group()):04X}")
    if loader is None and not stepwise:
        built = yaml_lines.read(text, Builder(file, budget))
        if built is not None:
            return _documents(built, file)
    builder = Builder(file, budget)
    try:
        parser = (loader or _LOADER)(text)
        try:  # what ``yaml.parse`` does, without a generator's step per event
            if stepwise:
                for event in iter(parser.get_event, None):
                    builder.feed(event)
            else:
                builder.run(iter(parser.get_event, None))
        finally:
            parser.dispose()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, file) from None
    except yaml.YAMLError as exc:
        raise MprError(SYNTAX, Location(file, 1, 1), **syntax_args(str(exc))) from None
    return _documents(builder.documents, file)


def _documents(built: list[Built], file: str) -> list[Document]:
    return [Document(b.data, b.positions, file, b.index, b.line, b.texts, b.readings, b.nodes,
                     b.cost)
            for b in built]


def _decode(data: bytes, file: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[start:exc.start].decode("utf-8", "replace")) + 1
        code = SHIFT_JIS if _looks_japanese(data) else BAD_UTF8
        raise MprError(code, Location(file, line, column), byte=f"{data[exc.start]:02X}") from None


def _looks_japanese(data: bytes) -> bool:
    """Whether bytes that are not UTF-8 read as Japanese text in Shift_JIS/CP932."""
    try:
        text = data.decode("cp932")
    except UnicodeDecodeError:
        return False
    return "\x00" not in text and len(_JAPANESE.findall(text)) >= 2


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line, start = 1, 0
    for match in _BREAK.finditer(text, 0, offset):
        line, start = line + 1, match.end()
    return line, offset - start + 1


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, file: str) -> MprError:
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return MprError(SYNTAX, Location(file, 1, 1), **syntax_args(exc.problem or str(exc)))
    lines = _BREAK.split(text)
    line_text = lines[mark.line] if mark.line < len(lines) else ""
    indent = len(line_text) - len(line_text.lstrip(" \t"))
    tab = line_text.find("\t", 0, indent)
    if tab >= 0:
        return MprError(TAB, Location(file, mark.line + 1, tab + 1))
    mistake = typing_mistake(text, file, mark.line + 1)  # a full-width space or colon
    if mistake is not None:
        return mistake
    problem = exc.problem or str(exc)
    where = Location(file, mark.line + 1, mark.column + 1)
    if "maximum nesting depth" in problem:  # libyaml's own bound, met while scanning ahead
        return MprError(DEPTH, where, limit=MAX_YAML_DEPTH)
    if "incompatible YAML document" in problem:  # %YAML 2.0, 1.3
        directive = re.search(r"^%YAML[ \t]+(\S+)", text, re.MULTILINE)
        return MprError(VERSION, where, version=directive.group(1) if directive else "?")
    return MprError(SYNTAX, where, **syntax_args(problem))
