"""Text output of the campaign commands: what changed (cards out, cards in), the clock, the notes."""
from __future__ import annotations

from rules_dsl.words import define_word, define_words, vocabulary, word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

LABELS = define_words(
    "campaign.label",
    {"out": "out", "in": "in", "deck": "deck", "cards": "cards", "discard": "discard",
     "clock": "clock", "dawn": "dawn", "none": "-", "seed": "seed", "undone": "undone by",
     "no_change": "no cards changed", "used": "uses",
     "changed": "the ruleset changed on disk: re-pin it with `mprules campaign repin FILE`"},
    {"out": "捨て札", "in": "引いた札", "deck": "山札", "cards": "枚", "discard": "捨て札の山",
     "clock": "時刻", "dawn": "夜明け", "none": "なし", "seed": "シード", "undone": "取り消し",
     "no_change": "カードの変化なし", "used": "使用回数",
     "changed": "ルールセットがディスク上で変更されています: `mprules campaign repin FILE` で固定し直してください"})
CLOCK = define_word("campaign.clock", "day {day} {time}", "{day}日目 {time}")


def _clock(minutes: int, lang: str) -> str:
    """``day 2 06:00`` / ``2日目 06:00``."""
    day, rest = divmod(minutes, 24 * 60)
    time = f"{rest // 60:02d}:{rest % 60:02d}"
    return word(CLOCK, lang).format(day=day + 1, time=time)


def _cards(cards: list[str], label: dict[str, str]) -> str:
    return " ".join(cards) if cards else label["none"]


def change_lines(changes: list[dict[str, Any]], label: dict[str, str], indent: str = "  ") -> list[str]:
    lines = []
    for change in changes:
        to = "" if change["to"] == change["holder"] else f" -> {change['to']}"
        lines.append(f"{indent}{change['holder']}: {label['out']} {_cards(change['out'], label)}"
                     f" | {label['in']}{to} {_cards(change['in'], label)}")
    return lines


LOG = define_words(
    "campaign.log",
    {"both": "{who} discarded {out} and drew {cards}", "out": "{who} discarded {out}",
     "in": "{who} drew {cards}", "into": "{who} discarded {out}; {to} drew {cards}", "hand": "", "held": "",
     "sep": ", ", "seed": "seed {seed}", "undone": "undone by #{seq}", "open": " (", "close": ")"},
    {"both": "{who}の{hand} {out} を捨て、{cards} を引いた", "out": "{who}の{hand} {out} を捨てた",
     "in": "{who}が {cards} を引いた", "into": "{who}の{hand} {out} を捨て、{to}が {cards} を引いた",
     "hand": "手札", "held": "札",
     "sep": "、", "seed": "シード {seed}", "undone": "#{seq} で取り消し", "open": "（", "close": "）"})


# What each command did, as a sentence of its inputs ({name} is an input; an input the sentence
# does not use follows it, named by INPUTS); a command not listed is shown by its name.
COMMANDS = define_words(
    "campaign.log.command",
    {"init": "started the campaign from {characters}", "sleep": "{pc} slept {hours} hours",
     "dawn": "dawn came", "circulate": "{holder}'s cards circulated", "rest": "the {tier} rest taken",
     "advance": "{minutes} minutes passed", "brief": "{pc} took {option} in the {tier} briefing",
     "undo": "#{seq} undone", "repin": "the ruleset pinned again"},
    {"init": "{characters} からキャンペーンを始めた", "sleep": "{pc}が {hours} 時間眠った",
     "dawn": "夜明けを迎えた", "circulate": "{holder}の札を循環させた", "rest": "休息（{tier}）をとった",
     "advance": "{minutes} 分が過ぎた", "brief": "{pc}がブリーフィング（{tier}）で {option} を選んだ",
     "undo": "#{seq} を取り消した", "repin": "ルールセットを固定し直した"})
INPUTS = define_words(
    "campaign.log.input",
    {"cards": "cards {value}", "count": "{value} cards", "all": "all cards", "select": "chosen by {value}",
     "ruleset": "ruleset {value}", "start": "from {value}", "adopt": "adopted {value}",
     "param_overrides": "parameters {value}", "new": "a new briefing"},
    {"cards": "{value} を指定", "count": "{value} 枚", "all": "すべての札", "select": "選び方 {value}",
     "ruleset": "ルールセット {value}", "start": "開始 {value}", "adopt": "採用 {value}",
     "param_overrides": "パラメータ {value}", "new": "新しいブリーフィング"})
_HOLDER_INPUTS = ("pc", "holder")


def log_lines(result: dict[str, Any], lang: str) -> list[str]:
    """``campaign log`` as sentences: one per command (what it did, its other inputs, its seed),
    then one per holder whose cards changed, holders shown by name when they have one."""
    words = vocabulary(LOG, lang)
    names = result.get("names") or {}
    characters = set(result.get("characters") or ())
    said = _Said(vocabulary(COMMANDS, lang), vocabulary(INPUTS, lang))
    lines = []
    for entry in result["entries"]:
        extra = [words["seed"].format(seed=entry["seed"])] if entry["seed"] is not None else []
        if entry["undone_by"]:
            extra.append(words["undone"].format(seq=entry["undone_by"]))
        tail = f"{words['open']}{words['sep'].join(extra)}{words['close']}" if extra else ""
        lines.append(f"#{entry['seq']} {_command_sentence(entry, names, words, said)}" + tail)
        for change in entry["changes"]:
            lines.append("    " + _sentence(change, names, words, characters))
    return lines


class _Said:
    """The words of every sentence of a log in its language: each command's template with the
    names of its fields, and the labels of the other inputs (looked up once per log)."""

    __slots__ = ("templates", "fields", "labels")

    def __init__(self, templates: dict[str, str], labels: dict[str, str]) -> None:
        self.templates = templates
        self.fields = {command: _fields(template) for command, template in templates.items()}
        self.labels = labels


def _fields(template: str) -> set[str]:
    """The names in ``{name}`` of a template (a name: letters, digits and ``_``)."""
    found = set()
    for part in template.split("{")[1:]:
        name, close, _ = part.partition("}")
        if close and name and all(ch.isalnum() or ch == "_" for ch in name):
            found.add(name)
    return found


def _command_sentence(entry: dict[str, Any], names: dict[str, str], words: dict[str, str],
                      said: _Said) -> str:
    """``リンが 7 時間眠った`` / ``リンの札を循環させた（SA、HQ を指定、2 枚）``."""
    inputs = {key: value for key, value in entry["inputs"].items()
              if value not in (None, False, [], {}, "")}
    shown = {key: names.get(value, value) if key in _HOLDER_INPUTS and isinstance(value, str)
             else _value(value, words["sep"]) for key, value in inputs.items()}
    template = said.templates.get(entry["command"])
    used = said.fields[entry["command"]] if template else set()
    if template is None or not used <= set(shown):
        head, used = entry["command"], set()
    else:
        head = template.format(**shown)
    labels = said.labels
    rest = [labels[key].format(value=shown[key]) if key in labels else _argument(key, inputs[key],
                                                                                 words["sep"])
            for key in shown if key not in used]
    return head + (f"{words['open']}{words['sep'].join(rest)}{words['close']}" if rest else "")


def _value(value: Any, sep: str) -> str:
    if isinstance(value, list):
        return sep.join(map(str, value))
    if isinstance(value, dict):
        return sep.join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _argument(key: str, value: Any, sep: str) -> str:
    if value is True:
        return key
    if isinstance(value, list):
        return f"{key} {sep.join(map(str, value))}"
    if isinstance(value, dict):
        return f"{key} {sep.join(f'{k}={v}' for k, v in value.items())}"
    return f"{key} {value}"


def _sentence(change: dict[str, Any], names: dict[str, str], words: dict[str, str],
              characters: set[str]) -> str:
    who = names.get(change["holder"]) or change["holder"]
    words = {**words, "hand": words.get("hand" if change["holder"] in characters else "held", "")}
    to = names.get(change["to"]) or change["to"]
    out, cards = words["sep"].join(change["out"]), words["sep"].join(change["in"])
    if not change["in"]:
        return words["out"].format(who=who, out=out, hand=words["hand"])
    if not change["out"]:
        return words["in"].format(who=to, cards=cards)
    if change["to"] != change["holder"]:
        return words["into"].format(who=who, out=out, to=to, cards=cards, hand=words["hand"])
    return words["both"].format(who=who, out=out, cards=cards, hand=words["hand"])


def holder_lines(result: dict[str, Any], label: dict[str, str]) -> list[str]:
    items = result.get("items") or {}
    lines = [f"{label['deck']}: {result['deck_count']} {label['cards']}",
             f"{label['discard']}: {_cards(result['discard'], label)}"]
    for holder, cards in result["holders"].items():
        owner = f" ({items[holder]})" if holder in items else ""
        lines.append(f"  {holder}{owner}: {_cards(cards, label)}")
    return lines


def text_lines(command: str, result: dict[str, Any], lang: str) -> list[str]:
    label = vocabulary(LABELS, lang)
    if command == "show":
        head = f"{label['clock']}: {_clock(result['clock_minutes'], lang)} ({label['dawn']} {result['dawn']})"
        warning = [label["changed"]] if result.get("ruleset_changed") else []
        return [head, *holder_lines(result, label), *warning]
    if command == "log":
        return log_lines(result, lang)
    seed = f" ({label['seed']} {result['seed']})" if result.get("seed") is not None else ""
    lines = [f"#{result['seq']} {command}  {label['clock']} {_clock(result['clock_minutes'], lang)}{seed}"]
    if command == "brief":
        allowed = "∞" if result["allowed"] is None else result["allowed"]
        lines.append(f"  {result['pc']}: {result['option']} ({label['used']} {result['used']}/{allowed})")
    lines.extend(change_lines(result.get("changes", []), label))
    if not result.get("changes") and command not in ("brief", "init"):
        lines.append(f"  {label['no_change']}")
    lines.extend(f"  {note['code']} {note['message']}" for note in result.get("notes", []))
    if command == "init":
        lines.extend(holder_lines(result, label))
    return lines
