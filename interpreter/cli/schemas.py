"""``mprules schemas``: where the installed JSON Schemas are (for an editor's ``yaml.schemas`` or
a modeline), and ``--copy DIR`` to put them into a repository (refreshing older copies)."""
from __future__ import annotations

import argparse
import os

from rules_dsl.errors import EXIT_OK, Location, MprError
from interpreter.cli import common  # the parent package, already loaded
from interpreter.cli.init import CANNOT_WRITE, EMPTY_DIR, NOT_A_DIRECTORY
from interpreter.cli.output import print_json
from interpreter.documents.resources import data_dir_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schemas", help="show where the JSON Schemas are, or copy them (--copy DIR)",
        description="Print the directory of the installed JSON Schemas (rule.json for rule files, "
                    "ruleset.json for ruleset.yaml). With --copy DIR, copy them into DIR, replacing "
                    "older copies of the same files.")
    parser.add_argument("--copy", metavar="DIR", help="copy the schemas into DIR")
    common(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # start-up: shutil loads only when this verb runs
    import shutil

    source = os.path.realpath(data_dir_text("schemas"))
    files = sorted(os.path.relpath(os.path.join(folder, name), source)
                   for folder, _, names in os.walk(source) for name in names if name.endswith(".json"))
    copied: list[str] = []
    if args.copy is not None:
        if not args.copy:  # never the working directory by accident
            raise MprError(EMPTY_DIR, Location(path="--copy"), option="--copy")
        if os.path.exists(args.copy) and not os.path.isdir(args.copy):
            raise MprError(NOT_A_DIRECTORY, Location(path="--copy"), path=args.copy)
        for name in files:
            dest = os.path.join(args.copy, name)
            try:
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(os.path.join(source, name), dest)
            except OSError as error:
                raise MprError(CANNOT_WRITE, Location(path="--copy"), path=dest,
                               detail=error.strerror or type(error).__name__) from None
            copied.append(dest)
    if args.format == "json":
        print_json({"directory": source, "rule": os.path.join(source, "rule.json"),
                    "ruleset": os.path.join(source, "ruleset.json"), "files": files,
                    "copied": copied})
    elif args.copy is not None:
        for dest in copied:
            print(dest)
    else:
        print(source)
    return EXIT_OK
