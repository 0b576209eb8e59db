"""``mprules init DIR``: a GM's house-rule repository, ready to use: a variant extending the
bundled ruleset, an example rule with examples, the schemas for editors (``schemas/``, with a
modeline on every document and ``.vscode/settings.json`` mapping them), a pre-commit
configuration and a GitHub Actions workflow. Nothing existing is overwritten: when a file it
would write is already there, nothing is written (MPR026)."""
from __future__ import annotations

import argparse
import os

from rules_dsl.errors import EXIT_OK, EXIT_STATE, EXIT_USAGE, Location, MprError, define
from rules_dsl.words import define_word, word
from interpreter import __version__
from interpreter.cli import common  # the parent package, already loaded
from interpreter.cli.output import print_json
from interpreter.documents.resources import data_dir_text

SCHEMA_FILES = define_word("cli.init_schemas", "{dir}/ ({count} schema files for editors)",
                           "{dir}/（エディタ用のスキーマ {count} 個）")
NEXT = define_word("cli.init_next", "next: cd {dir} && git init && mprules validate rules --strict && mprules test rules",
                   "次に: cd {dir} && git init && mprules validate rules --strict && mprules test rules")

WOULD_OVERWRITE = define(
    "MPR026", "{count} file(s) that init writes already exist ({files}); nothing was written: "
              "choose a new or empty directory",
    "init が書くファイルのうち {count} 個がすでにあります（{files}）。何も書いていません。新しいか空の"
    "ディレクトリを指定してください", exit_code=EXIT_STATE)
NOT_A_DIRECTORY = define(
    "MPR027", "{path} is a file, not a directory: nothing was written",
    "{path} はファイルで、ディレクトリではありません。何も書いていません", exit_code=EXIT_STATE)
CANNOT_WRITE = define(
    "MPR028", "cannot write {path} ({detail})", "{path} に書き込めません（{detail}）",
    exit_code=EXIT_STATE)
EMPTY_DIR = define(
    "MPR030", "{option} is empty: give the directory to write into (`.` for this one)",
    "{option} が空です。書き込むディレクトリを指定してください（ここなら `.`）", exit_code=EXIT_USAGE)
VERSION_MARK = "@MPRULES_VERSION@"
SCHEMAS = "schemas"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init", help="make a house-rule repository (variant, example rule, editor, pre-commit, CI)",
        description="Write a GM's house-rule repository into DIR: rules/house (a variant extending "
                    "the bundled ruleset, an example rule with examples), schemas/ for editors, "
                    ".vscode/settings.json, .pre-commit-config.yaml and .github/workflows/rules.yml. "
                    "Existing files are never overwritten.")
    parser.add_argument("dir", metavar="DIR", help="the directory to write (made when missing)")
    common(parser)
    parser.set_defaults(handler=handle)


def planned(target: str) -> list[tuple[str, str, bool]]:
    """``(source, destination, is_template)`` for every file init writes into ``target``."""
    files: list[tuple[str, str, bool]] = []
    for name, into, template in (("templates", "", True), ("schemas", SCHEMAS, False)):
        root = os.path.join(data_dir_text(name), "house_rules") if template else data_dir_text(name)
        for folder, dirs, names in os.walk(root):
            dirs.sort()
            for file in sorted(names):
                if file.endswith((".pyc", "~")):
                    continue
                source = os.path.join(folder, file)
                files.append((source, os.path.join(target, into, os.path.relpath(source, root)), template))
    return files


def handle(args: argparse.Namespace) -> int:
    target = args.dir
    if not target:  # never the working directory by accident
        raise MprError(EMPTY_DIR, Location(path="DIR"), option="DIR")
    if os.path.exists(target) and not os.path.isdir(target):
        raise MprError(NOT_A_DIRECTORY, Location(path="DIR"), path=target)
    files = planned(target)
    existing = [dest for _, dest, _ in files if os.path.lexists(dest)]
    if existing:
        shown = ", ".join(os.path.relpath(p, target) for p in existing[:5]) + (", ..." if len(existing) > 5 else "")
        raise MprError(WOULD_OVERWRITE, Location(path=existing[0]), count=len(existing), files=shown)
    written: list[str] = []
    made = sorted({d for _, dest, _ in files for d in _parents(dest, target) if not os.path.lexists(d)},
                  key=len, reverse=True)  # the folders this run makes, deepest first
    for source, dest, template in files:
        with open(source, "rb") as stream:
            data = stream.read()
        if template:
            data = data.replace(VERSION_MARK.encode(), __version__.encode())
        try:
            os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
            with open(dest, "xb") as out:  # never over a file made meanwhile
                out.write(data)
        except OSError as error:
            _undo(written, made)
            raise MprError(CANNOT_WRITE, Location(path=dest), path=dest,
                           detail=error.strerror or type(error).__name__) from None
        written.append(dest)
    if args.format == "json":
        print_json({"directory": target, "written": [os.path.relpath(p, target) for p in written]})
        return EXIT_OK
    schemas = os.path.join(target, SCHEMAS, "")
    for dest in written:
        if not dest.startswith(schemas):
            print(os.path.relpath(dest, target))
    print(word(SCHEMA_FILES, args.lang).format(dir=SCHEMAS, count=sum(d.startswith(schemas) for d in written)))
    print(word(NEXT, args.lang).format(dir=target))
    return EXIT_OK


def _parents(dest: str, target: str) -> list[str]:
    """The folders from ``target`` down to the one holding ``dest``."""
    folders = [target]
    relative = os.path.relpath(os.path.dirname(dest), target)
    if relative != os.curdir:
        for part in relative.split(os.sep):
            folders.append(os.path.join(folders[-1], part))
    return folders


def _undo(written: list[str], made: list[str]) -> None:
    """Remove what this run wrote and the folders it made (when empty): the place is as it was."""
    for path in written:
        try:
            os.remove(path)
        except OSError:
            pass
    for folder in made:
        try:
            os.rmdir(folder)
        except OSError:
            pass
