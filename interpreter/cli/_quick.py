"""A command line read without argparse, when it is plain: the options of a verb as argparse read
them once (their names, what each stores, its choices and defaults) are kept in the cache, and a
later command line that uses only those options, written out in full, each value a plain word, is
read from them to the same namespace argparse gives. Anything else (help, ``--version``, an
abbreviated or unknown option, a value that starts with ``-``, a missing or extra argument, a value
out of its choices or not a number, ``--``) goes to argparse, with its messages and exit codes.

The kept form is one file of the cache folder per verb, ``cli-<verb>.bin``: the code stamp of the
mprules that wrote it (``cachefile.code_stamp``) and the options in ``marshal``'s format."""
from __future__ import annotations

import os
import sys

from rules_dsl import cachefile

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

FORMAT = b"MPRQ1"
_STORE, _TRUE, _FALSE, _APPEND = "store", "true", "false", "append"


class Namespace:
    """What argparse's ``Namespace`` is to a handler: attributes, compared by them."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __eq__(self, other: object) -> bool:
        return vars(self) == vars(other) if hasattr(other, "__dict__") else NotImplemented

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__

    def __repr__(self) -> str:
        return f"Namespace({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


def _path(verb: str) -> str:
    return os.path.join(cachefile.cache_root(), f"cli-{verb}.bin")


def _options(parser: argparse.ArgumentParser) -> tuple[dict[str, tuple[Any, ...]], list[str],
                                                         dict[str, Any]] | None:
    """``(options, positionals, defaults)`` of one parser as argparse reads them; None when it has
    an option or argument this module does not read as argparse does."""
    import argparse  # start-up: loaded already (the parser is built)

    options: dict[str, tuple[Any, ...]] = {}
    positionals: list[str] = []
    defaults: dict[str, Any] = {}
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue  # -h, --version: argparse's own; the verbs: read by the caller
        if action.dest is not argparse.SUPPRESS and action.default is not argparse.SUPPRESS:
            if isinstance(action.default, str) and action.type is not None:
                return None  # a text default argparse would convert
            defaults[action.dest] = action.default
        if isinstance(action, argparse._StoreTrueAction):
            how: tuple[Any, ...] = (_TRUE, action.dest)
        elif isinstance(action, argparse._StoreFalseAction):
            how = (_FALSE, action.dest)
        elif type(action) in (argparse._StoreAction, argparse._AppendAction) and action.nargs is None \
                and action.type in (None, int):
            choices = tuple(action.choices) if action.choices is not None else None
            if choices is not None and not all(isinstance(c, str) for c in choices):
                return None
            how = (_STORE if type(action) is argparse._StoreAction else _APPEND, action.dest,
                   action.type is int, choices)
        else:
            return None
        if not action.option_strings:
            if how[0] != _STORE or how[2] or how[3] is not None:
                return None
            positionals.append(action.dest)
            continue
        for name in action.option_strings:
            options[name] = how
    for dest, value in parser._defaults.items():
        defaults.setdefault(dest, value)
    return options, positionals, defaults


def keep(parser: argparse.ArgumentParser, verb: str | None) -> None:
    """Keep the options of ``verb`` (the one argparse just read, from ``parser``'s tree) for
    ``read``, when they are not kept already and argparse reads them as ``read`` would."""
    import argparse  # start-up: loaded already (the parser is built)

    if verb is None or not cachefile.enabled() or _kept(verb) is not None:
        return  # (kept by this mprules already)
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if len(subs) != 1 or verb not in subs[0].choices:
        return
    top, sub = _options(parser), _options(subs[0].choices[verb])
    if top is None or sub is None or top[1] or getattr(sub[2].get("handler"), "__module__", None) is None:
        return
    if any(isinstance(a, argparse._SubParsersAction) for a in subs[0].choices[verb]._actions):
        return  # a verb with commands of its own
    handler = sub[2].pop("handler")
    body = cachefile.marshalled((cachefile.code_stamp(), top[0], top[2], sub[0], sub[1], sub[2],
                                 handler.__module__, handler.__qualname__))
    if body is not None:
        cachefile.write_checked(_path(verb), FORMAT, body)


def _kept(verb: str) -> tuple[Any, ...] | None:
    """The options of ``verb`` this mprules kept, or None (none kept, another mprules's, damaged)."""
    # start-up: marshal loads only when a verb's options may be kept
    import marshal

    body = cachefile.read_checked(_path(verb), FORMAT, 1 << 20)
    if body is None:
        return None
    try:
        stamp, *kept = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None
    return tuple(kept) if stamp == cachefile.code_stamp() and len(kept) == 7 else None


def _verb_of(argv: list[str]) -> str | None:
    """The verb of a command line whose options before it are plain (``--lang X``, flags)."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--lang":
            i += 2
        elif arg in ("--debug", "--no-cache") or arg.startswith("--lang="):
            i += 1
        else:
            return None if arg.startswith("-") else arg
    return None


def read(argv: list[str]) -> Namespace | None:
    """The namespace argparse would give for ``argv``, or None when argparse must read it."""
    verb = _verb_of(argv)
    if verb is None or not cachefile.enabled() or any(arg.startswith("--no") for arg in argv):
        return None  # (--no-cache, or what argparse may read as it: the cache is not read at all)
    kept = _kept(verb)
    if kept is None:
        return None
    top, top_defaults, options, positionals, defaults, module, name = kept
    index = argv.index(verb)
    outer = _parsed(argv[:index], top, [], top_defaults)
    inner = _parsed(argv[index + 1:], options, positionals, defaults)
    if outer is None or inner is None:
        return None
    __import__(module)  # the verb's module (importlib itself is not loaded for it: start-up)
    handler: Any = sys.modules[module]
    for part in name.split("."):
        handler = getattr(handler, part, None)
    if handler is None:
        return None
    return Namespace(**{**outer, "verb": verb, **inner, "handler": handler})


def _parsed(argv: list[str], options: dict[str, tuple[Any, ...]], positionals: list[str],
            defaults: dict[str, Any]) -> dict[str, Any] | None:
    """What argparse sets from ``argv`` over ``defaults``; None for anything it must read itself."""
    values = {k: list(v) if isinstance(v, list) else v for k, v in defaults.items()}
    left = list(positionals)
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg.startswith("-") and arg != "-":
            name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            how = options.get(name)
            if how is None:
                return None
            if how[0] in (_TRUE, _FALSE):
                if equals:
                    return None
                values[how[1]] = how[0] == _TRUE
                continue
            if not equals:
                if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
                    return None
                value, i = argv[i], i + 1
            kind, dest, whole, choices = how
            stored: Any = value
            if whole:
                try:
                    stored = int(value)
                except ValueError:
                    return None
            if choices is not None and stored not in choices:
                return None
            if kind == _APPEND:
                values[dest] = [*(values.get(dest) or []), stored]
            else:
                values[dest] = stored
        elif left:
            values[left.pop(0)] = arg
        else:
            return None
    return None if left else values
