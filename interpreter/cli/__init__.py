"""The ``mprules`` command: parses arguments, calls the library, prints. No rule logic here.

Each verb is a module of this package (listed in ``VERBS``) exposing ``register(subparsers)``; the
parser it adds sets ``handler`` to a function ``(args) -> int`` (the exit code). Only the verb on
the command line is imported and registered (all of them only for the overall help or an unknown
verb), and modules import heavy things inside their handler, so every command starts fast.
"""
from __future__ import annotations

import atexit
import errno
import gc
import os
import sys

from rules_dsl import cachefile
from rules_dsl.errors import EXIT_INTERNAL, EXIT_OK, EXIT_STATE, EXIT_USAGE, Location, MprError, default_lang, define, render

from interpreter import __version__
from interpreter.cli import _quick
from interpreter.cli.output import (PipeClosed, flush_stdout, is_lost_output, lost_output, print_error, print_refusal,
                                    print_heard, require_stdout, settle_stdout)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

INTERNAL = define(
    "MPR000", "internal error: {detail}. Please report this as a bug (run with --debug for details).",
    "内部エラー: {detail}。不具合として報告してください（詳細は --debug で表示）。",
    exit_code=EXIT_INTERNAL)
PATH_TOO_LONG = define(
    "MPR072", "the path {path} is too long for the file system (a name of more than 255 bytes, or a path "
              "of more than 4,096): nothing was read or written",
    "パス {path} がファイルシステムには長すぎます（255 バイトを超える名前か、4,096 バイトを超えるパス）。"
    "何も読み書きしていません", exit_code=EXIT_STATE)
USAGE = define("MPR001", "{detail}", "コマンドラインの誤り（mprules --help を参照）: {detail}", exit_code=EXIT_USAGE)


# An argument that starts with "-" yet is an expression (-2d6, -1+2d6, -(1+2)), not an option;
# compiled the first time an argument that is no option starts with "-" (start-up).
_EXPRESSION = r"-[\s\d(０-９（]|-[dD]\d"


# The verb modules of this package, in the order the help lists them.
VERBS = ("campaign", "check", "diff", "doc", "eval", "export", "init", "prob", "run", "schemas", "test",
         "validate")
_HELP = ("-h", "--help")


def verbs_needed(argv: list[str], names: tuple[str, ...] = VERBS) -> tuple[str, ...]:
    """The verbs (of ``names``) whose parsers ``argv`` can reach: the one it names, none for
    ``--version`` alone, every verb for the overall help, no verb or an unknown one. A verb with
    commands of its own (``SUBCOMMANDS``) asks the same of the arguments after it."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _HELP or arg == "--":
            return names
        if arg == "--version":
            return ()
        if arg == "--lang":
            i += 2
            continue
        if not arg.startswith("-"):
            return (arg,) if arg in names else names
        i += 1
    return names


def build_parser(lang: str = "en", verbs: tuple[str, ...] = VERBS,
                 argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command tree of ``verbs`` (all by default), its help texts and argparse's own texts in
    ``lang``. Given the command line ``argv``, a verb with commands of its own builds only those
    it can reach."""
    # start-up: argparse (and the help texts) load only for a command line the quick reading
    # (``quick_args``) leaves to it
    from interpreter.cli._i18n import localize, use_language
    from interpreter.cli._parser import _Parser

    use_language(lang)
    _Parser.lang = lang
    parser = _Parser(prog="mprules", description="Rules interpreter for the MagicPunk TRPG optional rules")
    parser.add_argument("--version", action="version", version=f"mprules {__version__}")
    parser.add_argument("--lang", choices=["ja", "en"], default=None,
                        help="language of messages (default: from LANG)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not use the cache of loaded rulesets (also: MPRULES_NO_CACHE=1)")
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)
    for verb in verbs:
        name = f"{__name__}.{verb}"
        __import__(name)  # importlib itself is not loaded for it: start-up
        module = sys.modules[name]
        own = getattr(module, "SUBCOMMANDS", None)
        if own is None:
            module.register(sub)
        else:
            after = argv[argv.index(verb) + 1:] if argv is not None and verb in argv else []
            module.register(sub, verbs_needed(after, own) if argv is not None else own)
    localize(parser, lang)
    return parser


def common(parser: argparse.ArgumentParser, *, formats: tuple[str, ...] = ("text", "json")) -> None:
    """Options every verb shares (also accepted after the verb)."""
    import argparse  # start-up: only when a verb's parser is built (its module imported it already)

    parser.add_argument("--format", choices=formats, default=formats[0], help="output format")
    parser.add_argument("--lang", choices=["ja", "en"], default=argparse.SUPPRESS,
                        help="language of messages (default: from LANG)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks of internal errors")
    parser.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS,
                        help="do not use the cache of loaded rulesets (also: MPRULES_NO_CACHE=1)")


def _lang_in(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (
            argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in ("ja", "en"):
            return value
    return None


def _settle_streams() -> None:
    """Standard streams a command can always use: text that the terminal's encoding cannot show
    (Japanese help on an ASCII terminal) is written escaped, and a closed standard input or error
    gets the null device in its place, so that no file the command opens later takes its number
    (an error would be written into it) and no error goes to standard output."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    for fd, name in ((0, "stdin"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
            continue  # open, though Python found it closed at start
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if name == "stderr":
            sys.stderr = open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        else:
            CLOSED_STDIN[0] = True


CLOSED_STDIN = [False]  # standard input was closed when the command started (``--input -`` refused)


def main(argv: list[str] | None = None) -> int:
    _skip_the_last_collection()
    _settle_streams()
    argv = sys.argv[1:] if argv is None else argv
    lang = _lang_in(argv) or default_lang()  # known before parsing, for usage errors too
    debug = "--debug" in argv
    loader = sys.modules.get("interpreter.documents.loader")
    if loader is not None:
        loader.heard()  # what an earlier call in this process read is not this command's
    verb_flags = None  # the flags of the inputs the verb's library names (its module's FLAGS)
    try:
        args: Any = _quick.read(argv)  # a plain command line, read as argparse read it before
        if args is None:
            parser = build_parser(lang, verbs_needed(argv), argv)
            args = parser.parse_args(argv)
            if not getattr(args, "no_cache", False):
                _quick.keep(parser, getattr(args, "verb", None))
        args.lang_given = args.lang is not None  # --lang on the command line, not from LANG
        lang = args.lang or lang
        args.lang = lang
        verb_flags = getattr(sys.modules.get(f"{__name__}.{args.verb}"), "FLAGS", None)
        if getattr(args, "no_cache", False):
            cachefile.disable()
        if not getattr(args, "handler", None):
            parser.print_help()  # (never a quick reading: it always has its verb's handler)
            return EXIT_USAGE
        require_stdout()
        status = int(args.handler(args) or 0)
        print_heard(lang)
        flush_stdout()
        return status
    except MprError as error:
        from interpreter.cli._wording import for_command_line  # start-up: only when an error is shown

        print_heard(lang)
        said = for_command_line(error, verb_flags)
        _error_as_json(locals().get("args"), said, lang)
        print_error(said, lang)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except PipeClosed:
        return EXIT_OK  # the reader of the output went away (`| head`): as shells expect
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            path = os.fsdecode(error.filename) if error.filename is not None else "?"
            shown = path if len(path) <= 80 else path[:80] + "…"
            print_error(MprError(PATH_TOO_LONG, Location(path=shown), path=shown), lang)
            return EXIT_STATE
        if not is_lost_output(error):
            return _internal(error, debug, lang)
        if error.errno == errno.EPIPE:
            settle_stdout()
            return EXIT_OK
        lost = lost_output(error)
        print_error(lost, lang)
        return lost.exit_code
    except Exception as error:  # a bug: one line, the traceback only with --debug
        return _internal(error, debug, lang)
    finally:
        settle_stdout()
        _keep_compiled_code()


def entry() -> int:
    """The installed command (``[project.scripts]``) and ``python -m interpreter``: ``main()``, then
    the end of the process without tearing the interpreter down (freeing every module, function
    and object one by one: about 5 million instructions, 5% of a warm ``run``). What an exit must
    still do is done first: the ``atexit`` functions (those of other tools too, a coverage
    collector's), then standard output and error flushed. While another thread runs, or when a
    flush fails, the interpreter's own exit takes over with ``main``'s status, as before."""
    status = main()
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return status
    try:
        atexit._run_exitfuncs()  # each runs once: the list is empty afterwards
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001  the interpreter's exit reports it as it always did
        return status
    os._exit(status)


_freezes_at_exit = False

# The cyclic collector's first generation is collected after this many new container objects
# (Python's own is 700). Starting a command makes tens of thousands of them that live until exit
# (modules, functions, classes, the rule read back): with 700, a warm ``run`` or ``prob`` spent
# about 5 million instructions (4% of it) walking them again and again, and found nothing to free.
# Garbage in cycles is still collected, only in larger batches; the older generations keep
# Python's thresholds.
YOUNG_THRESHOLD = 20_000


def _skip_the_last_collection() -> None:
    """At exit, Python's last garbage collections walk every object the process made (its
    modules above all): a tenth of a short command's work. Frozen first, they are skipped. Nothing
    of mprules waits for a collection at exit: files and connections are closed, output flushed
    and the compiled code written (``main``'s ``finally``) before it."""
    global _freezes_at_exit
    if not _freezes_at_exit:
        atexit.register(gc.freeze)
        _freezes_at_exit = True
    young, middle, old = gc.get_threshold()
    if young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def _keep_compiled_code() -> None:
    """Write the code of the expressions this command compiled for the next commands (when it
    compiled any: the module is loaded only then)."""
    codecache = sys.modules.get("rules_dsl.codecache")
    if codecache is not None:
        try:
            codecache.flush()
        except Exception:  # a cache is never worth a failed command  # noqa: BLE001
            pass


# Verbs that write their own JSON for a refusal (in the shape of their output).
_OWN_JSON_ERRORS = frozenset({"validate", "test"})


def _error_as_json(args: Any, error: MprError, lang: str) -> None:
    """With ``--format json``, a refusal is JSON on standard output too (``output.print_refusal``)."""
    if getattr(args, "format", None) == "json" and getattr(args, "verb", None) not in _OWN_JSON_ERRORS:
        print_refusal(error, lang)


def _internal(error: Exception, debug: bool, lang: str) -> int:
    if debug:
        # start-up: traceback loads only when _internal() runs
        import traceback

        traceback.print_exc()
    detail = f"{type(error).__name__}: {error}"
    print(f"mprules: {INTERNAL} {render(INTERNAL, {'detail': detail}, lang)}", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
