"""How the command line words what the library says about its inputs.

The layers below the command line name an input by its parameter (``hours``, ``count``,
``force``) and say what to do in their own words (a message argument ``how``); they never name a
flag. Before an error is printed, the command line locates it at the flag that gives the input
(``hours`` -> ``--hours``) and words ``how`` with its flags and commands."""
from __future__ import annotations

from rules_dsl.errors import Location, MprError
from rules_dsl.words import bilingual, define_word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping

# The flag of each input the library names that every verb gives the same way; a verb module adds
# its own in a ``FLAGS`` mapping of its own.
FLAGS = {"seed": "--seed", "dice": "--dice"}

# What to do, with the command line's flags: by message code. ``{name}`` takes the error's argument.
HOW = {
    "MPR623": define_word("cli.how.init", "create one with `mprules campaign init`",
                          "`mprules campaign init` で作成してください"),
    "MPR624": define_word("cli.how.force", "use --force to replace it", "置き換えるには --force を指定してください"),
    "MPR632": define_word("cli.how.repin", "Re-pin it with `mprules campaign repin {file}` (keeps the cards; the "
                          "deck's composition must be the same) or start over with `mprules campaign init --force`",
                          "`mprules campaign repin {file}` で固定し直すか（カードはそのまま。山札の構成は同じである必要があります）、"
                          "`mprules campaign init --force` でやり直してください"),
    "MPR029": define_word("cli.how.exported_ruleset", "give it with --ruleset DIR, or write `ruleset: (bundled)` "
                          "in the export to play it on the bundled rules",
                          "--ruleset DIR で指定するか、同梱のルールで遊ぶなら書き出しに `ruleset: (bundled)` と書いてください"),
    "MPR638": define_word("cli.how.restart", "start over with `mprules campaign init --force`",
                          "`mprules campaign init --force` でやり直してください"),
    "MPR808": define_word("cli.how.param", "set it (in a variant or with --param)",
                          "バリアントか --param で値を設定してください"),
}


def _flag(name: object, flags: Mapping[str, str]) -> object:
    if not isinstance(name, str):
        return name
    parts = name.split("/")
    return "/".join(flags[p] for p in parts) if all(p in flags for p in parts) else name


def for_command_line(error: MprError, verb_flags: Mapping[str, str] | None = None) -> MprError:
    """``error`` as the command line shows it: located at the flag of the input its path names
    (the verb's ``verb_flags``, then those every verb shares), its ``field`` named by that flag,
    and ``how`` worded with flags."""
    flags = {**FLAGS, **(verb_flags or {})}
    loc = error.loc
    if loc is not None and loc.path and loc.file is None:
        head, sep, rest = loc.path.partition(" ")
        error.loc = Location(loc.file, loc.line, loc.column, f"{_flag(head, flags)}{sep}{rest}")
    if "field" in error.args_:
        error.args_["field"] = _flag(error.args_["field"], flags)
    reworded = HOW.get(error.code)
    if reworded is not None and "how" in error.args_:
        texts = bilingual(reworded)
        try:
            error.args_["how"] = {lang: text.format_map(error.args_) for lang, text in texts.items()}
        except (KeyError, IndexError, ValueError):
            error.args_["how"] = texts
    return error
