"""What ``eval`` and ``prob`` share: ``--var k=v`` and ``--input FILE`` read as YAML, an expression
error shown with a caret under its column, probability rows as aligned text, and value display."""
from __future__ import annotations

import errno
import sys
from functools import lru_cache

from rules_dsl.errors import EXIT_STATE, EXIT_USAGE, Location, MprError, Phrase, define
from rules_dsl.functions import exact, is_fraction
from interpreter.documents.limits import MAX_INPUT_FILE_BYTES, MAX_YAML_DEPTH

from interpreter.cli.output import print_error
from interpreter.reports.bars import bar
from rules_dsl.words import define_word, word

ROUNDED_DOWN = define_word("cli.rounded_down", "rounded down", "切り捨て")
GIVE_VAR = define_word("cli.give_var", "give it with --var {name}=VALUE", "--var {name}=値 で与えます")

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

_SHOWN = 72  # characters of an expression line shown under an error

BAD_VAR = define(
    "MPR013", "--var takes NAME=VALUE with a YAML value (e.g. xs=[1200, 800], item.quality=傑作): {detail}",
    "--var には 名前=値 を YAML で指定してください（例: xs=[1200, 800]、item.quality=傑作）: {detail}",
    exit_code=EXIT_USAGE)
INPUT_UNREADABLE = define(
    "MPR014", "cannot read the input file {file}: {reason}",
    "入力ファイル {file} を読めません: {reason}", exit_code=EXIT_STATE)
BAD_INPUT = define(
    "MPR015", "the input file {file} must hold one YAML mapping of input names to values: {detail}",
    "入力ファイル {file} には、入力名と値の YAML マッピングを1つ書いてください: {detail}")


def _is_number(label: str) -> bool:
    """``re.fullmatch(r"-?\\d+(/\\d+)?", label)`` (``\\d``: a decimal digit of any script, as
    ``str.isdecimal``), without compiling a pattern (start-up)."""
    whole, slash, below = label.removeprefix("-").partition("/")
    return whole.isdecimal() and (not slash or below.isdecimal())


def plain(value: Any) -> Any:
    """YAML data as expression values: decimals as exact fractions, dates as their text."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if value != value or abs(value) == float("inf"):
            raise ValueError(f"{value} is not a finite number")
        return exact(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    datetime = sys.modules.get("datetime")  # a date exists only once its module is loaded (start-up)
    if datetime is not None and isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def _set_path(target: dict[str, Any], dotted: str, value: Any, where: str) -> None:
    keys = dotted.split(".", MAX_YAML_DEPTH)
    if len(keys) > MAX_YAML_DEPTH:  # as deep as a YAML value may be
        raise MprError(BAD_VAR, Location(path=where[:80]),
                       detail=Phrase("more than {n} dotted names (the nesting of a YAML value)",
                                     "名前を . でつなげるのは {n} 段までです（YAML の値の入れ子の上限）", n=MAX_YAML_DEPTH))
    if not all(k.strip() for k in keys):
        raise MprError(BAD_VAR, Location(path=where), detail=Phrase("empty name in {dotted!r}", "{dotted!r} に空の名前があります",
                                                                     dotted=dotted))
    node = target
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise MprError(BAD_VAR, Location(path=where), detail=Phrase(
                "{key!r} is already a value, not a mapping", "{key!r} はもう値なので、その下に名前を置けません", key=key))
        node = child
    node[keys[-1]] = value


def parse_vars(pairs: list[str] | None, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """``["xs=[1200, 800]", "item.quality=傑作"]`` -> ``{"xs": [1200, 800], "item": {"quality": "傑作"}}``."""
    env: dict[str, Any] = dict(base or {})
    for pair in pairs or []:
        where = f"--var {pair}"
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise MprError(BAD_VAR, Location(path=where), detail=Phrase("no NAME= in {pair!r}", "{pair!r} に 名前= がありません",
                                                                     pair=pair))
        try:
            value = plain(_yaml_value(text, f"--var {name.strip()}")) if text.strip() else ""
        except MprError as error:
            raise MprError(BAD_VAR, Location(path=where), detail=Phrase.of(error)) from None
        except ValueError as error:
            raise MprError(BAD_VAR, Location(path=where), detail=Phrase(
                "{value} is not a finite number", "{value} は有限の数ではありません",
                value=str(error).split(" ", 1)[0])) from None
        _set_path(env, name.strip(), value, where)
    return env


def _yaml_value(text: str, where: str) -> Any:
    """One YAML value read by the project's loader (aliases, depth, size and tags bounded;
    docs/limits.md); None for an empty text; more than one document is refused."""
    # start-up: kept_yaml loads only when _yaml_value() runs (PyYAML only for a text it has not kept)
    from interpreter.documents.kept_yaml import load_text

    docs = load_text(text, where)
    if len(docs) > 1:
        raise MprError(BAD_INPUT, Location(where, docs[1].line, 1), file=where,
                       detail=Phrase("{n} YAML documents, expected one", "YAML の文書が {n} 個あります（1個だけ書いてください）",
                                     n=len(docs)))
    if docs and docs[0].readings:  # values other YAML readers read differently, to be shown
        # start-up: interpreter.documents.loader is loaded already when a document has readings
        from interpreter.documents.loader import heed

        heed(docs[0])
    return docs[0].data if docs else None


def kind_of(data: Any) -> Phrase:
    """What a YAML value is, said the GM's way (a list, a text, a number)."""
    if isinstance(data, list):
        return Phrase("a list", "リスト")
    if isinstance(data, str):
        return Phrase("a text", "文字列")
    if isinstance(data, bool):
        return Phrase("a boolean", "真偽値")
    if isinstance(data, (int, float)):
        return Phrase("a number", "数")
    return Phrase(type(data).__name__, type(data).__name__)


def _stdin_closed() -> bool:
    # start-up: the parent package is loaded already (it runs every command)
    from interpreter.cli import CLOSED_STDIN

    return CLOSED_STDIN[0]


READ_INPUT: list[tuple[str, str]] = []  # (file, text) of the input load_input read last


def load_input(file: str | None) -> dict[str, Any]:
    """The YAML (or JSON) mapping of ``--input FILE`` (``-`` reads standard input); ``{}`` if absent.
    Its text stays in ``READ_INPUT``, so an error about one of its values can be given its place
    (``input_positions``)."""
    READ_INPUT.clear()
    if file is None:
        return {}
    try:
        if file == "-":
            if sys.stdin is None or _stdin_closed():
                raise OSError(errno.EBADF, "standard input is closed")
            text = sys.stdin.read(MAX_INPUT_FILE_BYTES + 1)
        else:
            # start-up: kept_yaml loads only when load_input() runs (imports no PyYAML)
            from interpreter.documents.kept_yaml import read_regular

            raw = read_regular(file, MAX_INPUT_FILE_BYTES)  # None: open_regular says why
            if raw is not None:
                text = raw.decode("utf-8")
            else:
                # start-up: interpreter.documents.loader loads only for a file read_regular refused
                from interpreter.documents.loader import open_regular

                # start-up: pathlib loads only when load_input() runs
                from pathlib import Path

                with open_regular(Path(file)) as stream:
                    text = stream.read(MAX_INPUT_FILE_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MprError(INPUT_UNREADABLE, Location(file=file), file=file,
                       reason=getattr(error, "strerror", None) or str(error)) from None
    if len(text.encode("utf-8")) > MAX_INPUT_FILE_BYTES:
        raise MprError(INPUT_UNREADABLE, Location(file=file), file=file,
                       reason=Phrase("larger than {n} bytes", "{n} バイトを超えています",
                                     n=MAX_INPUT_FILE_BYTES))
    READ_INPUT.append((file, text))
    try:
        data = _yaml_value(text, file)
    except MprError as error:
        raise MprError(BAD_INPUT, error.loc, file=file,
                       detail=Phrase.of(error)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MprError(BAD_INPUT, Location(file=file), file=file, detail=Phrase(
            "found {found}", "{found} が書かれています", found=kind_of(data)))
    return plain(data)


def input_positions(pairs: list[str] | None) -> tuple[dict, str | None]:
    """The positions of the values of the input ``load_input`` read last and the name of its file
    (``<stdin>`` for ``-``), without the values a ``--var`` of ``pairs`` set over it and their
    parents (an error there is the argument's, not the file's); ``({}, None)`` when there was no
    input."""
    if not READ_INPUT:
        return {}, None
    file, text = READ_INPUT[0]
    name = "<stdin>" if file == "-" else file
    # start-up: the input's positions are read only for an error about one of its values
    from interpreter.documents.kept_yaml import load_text

    try:
        docs = load_text(text, name)
    except MprError:
        return {}, None
    if len(docs) != 1:
        return {}, None
    given = [tuple(pair.partition("=")[0].strip().split(".")) for pair in pairs or []]
    positions = {path: where for path, where in docs[0].positions.items()  # nor their parents'
                 if not any(path[:len(keys)] == keys or keys[:len(path)] == path for keys in given)}
    return positions, name


@lru_cache(maxsize=4096)
def _wide_count(text: str) -> int:
    # start-up: unicodedata loads only for a text that is not ASCII (display_width)
    import unicodedata

    return sum(1 for c in text if unicodedata.east_asian_width(c) in "WF")


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for each wide (East Asian) character. ASCII text,
    the common case, is measured without looking a single character up."""
    if text.isascii():
        return len(text)
    return len(text) + _wide_count(text)


def pad(text: str, width: int, *, right: bool = False) -> str:
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def show_expression_error(error: MprError, text: str, lang: str, as_json: bool = False) -> int:
    """Print the error, then the expression with a caret under the column it names (and, with
    ``as_json``, the refusal as JSON on standard output)."""
    if as_json:
        # start-up: the JSON writer loads only when a refusal is shown as JSON
        from interpreter.cli.output import print_refusal

        print_refusal(error, lang)
    print_error(error, lang)
    loc = error.loc
    if loc is not None and loc.column is not None and loc.file is None:
        lines = text.splitlines() or [""]
        line, column = _window(lines[min(max((loc.line or 1) - 1, 0), len(lines) - 1)],
                               max(1, loc.column))
        print(f"  {line}", file=sys.stderr)
        print("  " + " " * display_width(line[:column - 1]) + "^", file=sys.stderr)
    if error.code == "MPR133":  # the language says a name has no value; the flag that gives one
        print("  " + word(GIVE_VAR, lang).format(name=error.args_.get("name")), file=sys.stderr)
    return error.exit_code


def _window(line: str, column: int) -> tuple[str, int]:
    """At most _SHOWN characters of a long line around ``column`` (cut ends marked …), and the
    column inside what is shown."""
    if len(line) <= _SHOWN:
        return line, column
    start = max(0, min(column - 1 - _SHOWN // 2, len(line) - _SHOWN))
    end = start + _SHOWN
    head = "…" if start else ""
    return head + line[start:end] + ("…" if end < len(line) else ""), column - start + len(head)


def show_exact(value: Any, lang: str) -> str:
    """A value as ``show`` does; a fraction also with its rounded-down value: ``7/2 (切り捨て 3)``."""
    if is_fraction(value) and value.denominator != 1:
        return f"{show(value)} ({word(ROUNDED_DOWN, lang)} {value.numerator // value.denominator})"
    return show(value)


def show(value: Any) -> str:
    """A value as a GM reads it: text as written, other values as JSON (true, null, 7/2)."""
    if type(value) is int:
        return str(value)  # the usual answer, shown without loading json
    # start-up: json and rules_dsl.plain load only for values other than whole numbers
    import json
    from rules_dsl.plain import jsonable

    data = jsonable(value)
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)


def row_label(value: Any, label: str | None) -> str:
    """A row's text: a number with its label when it has one (``7 空き巣…``); anything else (a
    row id, a list of ids) by its label alone when it has one."""
    if label is not None and (not isinstance(value, int) or isinstance(value, bool)):
        return label
    shown = show(value)
    return shown if label is None or label == shown else f"{shown} {label}"


def row_labels(values: Sequence[Any], labels: Sequence[str | None]) -> list[str]:
    """``row_label`` of each value and its label, in bulk: a whole number and a text (what the
    rows of a long table hold) without a call each."""
    out = []
    for value, label in zip(values, labels):
        kind = type(value)
        if kind is int:
            shown = str(value)
            out.append(shown if label is None or label == shown else f"{shown} {label}")
        elif kind is str:
            out.append(value if label is None else label)
        else:
            out.append(row_label(value, label))
    return out


_CHUNK = 4096  # rows written at once: a long table is never one text of every line


def print_rows(rows: Sequence[tuple[str, Any]], header: tuple[str, str]) -> None:
    """Aligned rows of label, fraction, percent and a bar scaled to the likeliest row; each
    probability a Fraction or its (numerator, denominator) in lowest terms."""
    print_columns([label for label, _ in rows], [p for _, p in rows], header)


def print_columns(labels: Sequence[str], ps: Sequence[Any], header: tuple[str, str]) -> None:
    """``print_rows`` of the labels and the probabilities given apart. What follows the label
    (fraction, percent, bar) is made once per distinct probability and each label's width once
    per label, so a long table costs a few operations per row; the lines are written a chunk at
    a time."""
    shown: dict[Any, tuple[str, float]] = {}  # each distinct probability: its fraction and float
    for p in ps:
        if p not in shown:
            n, d = p if type(p) is tuple else (p.numerator, p.denominator)
            shown[p] = (f"{n}/{d}" if d != 1 else str(n), n / d)
    widths = [len(label) if label.isascii() else display_width(label) for label in labels]
    label_width = max([display_width(header[0]), *widths])
    fraction_width = max([display_width(header[1])] + [len(f) for f, _ in shown.values()])
    top = max((f for _, f in shown.values()), default=1.0) or 1.0
    right = all(_is_number(label) for label in labels)  # numbers line up on the right
    tails = {p: f"  {fraction:<{fraction_width}}  {f * 100:6.2f}%  {bar(f / top, 30)}"
             for p, (fraction, f) in shown.items()}
    write = sys.stdout.write
    write(f"{pad(header[0], label_width, right=right)}  {pad(header[1], fraction_width)}        %")
    for start in range(0, len(labels), _CHUNK):
        end = start + _CHUNK
        if right:
            lines = [" " * (label_width - w) + label + tails[p]
                     for label, w, p in zip(labels[start:end], widths[start:end], ps[start:end])]
        else:
            lines = [label + " " * (label_width - w) + tails[p]
                     for label, w, p in zip(labels[start:end], widths[start:end], ps[start:end])]
        write("\n" + "\n".join(lines))
    write("\n")
