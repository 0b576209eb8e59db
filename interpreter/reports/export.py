"""What a GM pastes into the online tools Japanese tables play on: a roll table rule as a BCDice
original table (オリジナル表: the table's name, its dice, then one ``n:text`` line for every roll of
the dice's range), and the ruleset's checks as a CCFOLIA chat palette of one character: one
``nMPmCx label`` command per line and nothing else, the ability ``m`` from a characters file, else a
``{ability}`` reference CCFOLIA fills from the character's sheet (the labels are the ruleset's data,
``parameters.sheet.abilities``)."""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from rules_dsl.errors import EXIT_USAGE, Location, MprError, define

from interpreter.ruleset.model import Rule, Ruleset
from rules_dsl.words import LIST_SEPARATOR, define_word, localized, word

NOT_IN_TABLE = define_word("export.not_in_table", "(not in the table)", "（表になし）")

NOT_A_TABLE = define(
    "MPR910", "{rule} is a {kind} rule; a BCDice table is written from a RollTable rule ({tables})",
    "{rule} は {kind} のルールです。BCDice の表にできるのは RollTable のルールです（{tables}）",
    exit_code=EXIT_USAGE)
NOT_BCDICE_DICE = define(
    "MPR911", "the roll {roll!r} of table {rule} is not dice BCDice tables roll (nDm or D66)",
    "表 {rule} のロール {roll!r} は BCDice の表で振れるダイス（nDm か D66）ではありません")
NO_CHECKS = define(
    "MPR912", "no check of the ruleset could be written: {detail}",
    "ルールセットの判定を1つも書き出せませんでした: {detail}")
BAD_CHARACTERS = define(
    "MPR913", "{field}: {expected}", "{field}: {expected_ja}", exit_code=EXIT_USAGE)
NO_SUCH_CHARACTER = define(
    "MPR914", "no character {character!r} in {file} (there: {known})",
    "{file} にキャラクター {character!r} はいません（いるのは: {known}）", exit_code=EXIT_USAGE)

_DICE = re.compile(r"\s*(\d*)\s*[dD]\s*(\d+)\s*")

NO_ABILITY = define_word("export.no_ability",
                         "{name}: no {attribute} in the characters file, so the line says {ability}: "
                         "CCFOLIA fills in the sheet's {attribute}",
                         "{name}: キャラクターのファイルに能力値 {attribute} がないので {ability} と書きました"
                         "（CCFOLIA がキャラクターの {attribute} を入れます）")
REFERENCE = define_word("export.reference",
                        "no characters file: the palette says {abilities}, which CCFOLIA fills in "
                        "from the character's sheet",
                        "キャラクターのファイルがないので {abilities} と書きました（CCFOLIA がキャラクターの"
                        "能力値を入れます）")
NO_CHECK_RULE = define_word("export.no_check_rule", "the ruleset has no adopted Check rule",
                            "採用している Check のルールがありません")


def bcdice_dice(text: str) -> tuple[str, list[int]] | None:
    """BCDice's name for a roll expression and the rolls it can give: ``2d6`` -> ``("2D6",
    [2..12])``, ``d66`` -> ``("D66", [11..16, 21.., 66])``; None for anything else."""
    compact = text.replace(" ", "").upper()
    if compact == "D66":
        return "D66", [tens * 10 + ones for tens in range(1, 7) for ones in range(1, 7)]
    match = _DICE.fullmatch(text)
    if not match:
        return None
    times, sides = int(match.group(1) or 1), int(match.group(2))
    if times < 1 or sides < 1:
        return None
    return f"{times}D{sides}", list(range(times, times * sides + 1))


# What BCDice reads as a line break in a table: its lines are split at every \R (CR LF, LF, VT, FF,
# CR, NEL, LS, PS), and in a row's text the two characters backslash and n become a line break.
_BREAKS = re.compile("\r\n|[\n\x0b\x0c\r\x85\u2028\u2029]")
_LITERAL_BACKSLASH_N = "\\n"
_SHOWN_BACKSLASH = "\uff3c"  # FULLWIDTH REVERSE SOLIDUS: a backslash BCDice leaves as it is

REACHED_BY_CHANGE = define_word("export.reached_by_change", "(by changing the roll) {rolls}: {text}",
                                "（出目の増減で）{rolls}：{text}")
CHANGED_TO = define_word("export.changed_to", "[-> {roll}] {text}", "［→{roll}］{text}")
SHIFTED_NAME = define_word("export.shifted_name", "{title} (roll {change})", "{title}（出目{change}）")


def bcdice_text(text: str) -> str:
    """A text as one row of a BCDice original table: each line break written as ``\\n`` (which
    BCDice turns into a line break), a literal backslash-n kept as text (its backslash written
    full-width, since BCDice would break the line there), the spaces around the whole text
    dropped (as BCDice drops them)."""
    text = text.replace(_LITERAL_BACKSLASH_N, _SHOWN_BACKSLASH + "n")
    return "\\n".join(_BREAKS.split(text.strip()))


def _value_text(value: Any) -> str:
    """A row's ``value`` written as YAML's flow style (``{gold: 3, item: 剣}``)."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return str(value)


def _text(entry: dict[str, Any] | None, rule: Rule, lang: str) -> str:
    """A row's text in ``lang`` with the rule's parameters filled in (a row with only a value: the
    value; neither: its id, else "not in the table"), unescaped."""
    # start-up: rules_dsl.template loads only when _text() runs
    from rules_dsl.template import compile_template

    text = (entry or {}).get("text")
    if isinstance(text, dict):
        text = localized(text, lang) or None
    if text is None and (entry or {}).get("value") is not None:
        return _value_text(entry["value"])  # type: ignore[index]
    if text is None:
        text = (entry or {}).get("id") or word(NOT_IN_TABLE, lang)
    return compile_template(str(text), rule.loc("rows")).render({"params": rule.params}, lang)


@dataclass(frozen=True)
class BcdiceTable:
    """An exported table: its ``text``, and the rows no roll of the dice gives (``(rolls, row
    name)``): each written on the nearest line of the dice as reached by changing the roll, or,
    in the table of a stated change, the rows that change never gives (not written)."""

    text: str
    outside: list[tuple[str, str]]


def bcdice_table(ruleset: Ruleset, rule_id: str, lang: str = "ja", shift: int | None = None) -> BcdiceTable:
    """The rule ``rule_id`` (a RollTable) as the text of a BCDice original table: one line per roll
    of the dice (BCDice accepts no other line). A row no roll of the dice gives (a roll a change
    of the roll reaches) is written on the nearest line, after
    a line break, so BCDice shows it there. With ``shift``, the table of the roll changed by that
    much: line n gives the row of n + shift (inside the table's range)."""
    # start-up: interpreter.solvers.roll_rows loads only when bcdice_table() runs
    from interpreter.solvers.roll_rows import row_index, row_name, span, table_range

    rule = ruleset.rule(rule_id)
    if rule.kind != "RollTable":
        tables = ", ".join(r.id for r in ruleset.rules.values() if r.kind == "RollTable") or "-"
        raise MprError(NOT_A_TABLE, Location(path=rule_id), rule=rule_id, kind=rule.kind, tables=tables)
    roll = str(rule.params.get("roll", ""))
    dice = bcdice_dice(roll)
    if dice is None:
        raise MprError(NOT_BCDICE_DICE, rule.loc("params", "roll"), rule=rule_id, roll=roll)
    name, rolls = dice
    index = row_index(rule)
    title = _title(rule, lang)
    if shift:
        lo, hi = table_range(rule)
        chosen = {n: min(max(n + shift, lo), hi) for n in rolls}
        title = word(SHIFTED_NAME, lang).format(title=title, change=f"{shift:+d}")
    else:
        chosen = {n: n for n in rolls}
    texts = {n: _text(index.row_for(chosen[n]), rule, lang) for n in rolls}
    if shift:
        texts = {n: word(CHANGED_TO, lang).format(roll=chosen[n], text=t) if chosen[n] != n else t
                 for n, t in texts.items()}
    outside: list[tuple[str, str]] = []
    shown = {id(index.row_for(chosen[n])) for n in rolls}
    for i, row in enumerate(rule.doc.get("rows") or []):
        a, b = span(row["roll"])
        if a > b or id(row) in shown:
            continue
        first = bisect_left(rolls, a)
        if not shift and first < len(rolls) and rolls[first] <= b:
            continue  # listed at a roll of the dice, but under an earlier row (an overlap)
        numbers = str(a) if a == b else f"{a}-{b}"
        outside.append((numbers, row_name(rule, i)))
        if not shift:  # written on the nearest line below it (or the first line)
            at = rolls[max(bisect_right(rolls, a) - 1, 0)]
            texts[at] += "\n" + word(REACHED_BY_CHANGE, lang).format(rolls=numbers, text=_text(row, rule, lang))
    lines = [title, name] + [f"{n}:{bcdice_text(texts[n])}" for n in rolls]
    return BcdiceTable("\n".join(lines) + "\n", outside)


def _title(rule: Rule, lang: str) -> str:
    # start-up: rules_dsl.template loads only when _title() runs
    from rules_dsl.template import compile_template

    title = compile_template(rule.title(lang), rule.loc("title")).render({"params": rule.params}, lang)
    return " ".join(title.split()) or rule.id


@dataclass(frozen=True)
class Note:
    """What the palette says about a check: ``left_out`` when its line was not written."""

    text: str
    left_out: bool = False


def ability_label(ruleset: Ruleset, attribute: str, lang: str) -> str:
    """The name a character sheet gives ``attribute`` (an attribute -> its label), from the ruleset's
    ``parameters.sheet.abilities``; the attribute itself when the data names none."""
    sheet = ruleset.parameters.get("sheet") if isinstance(ruleset.parameters, dict) else None
    labels = sheet.get("abilities") if isinstance(sheet, dict) else None
    label = labels.get(attribute) if isinstance(labels, dict) else None
    if isinstance(label, dict):
        return str(localized(label, lang) or attribute)
    return str(label) if isinstance(label, str) and label else attribute


def _ability_value(ruleset: Ruleset, character: "Character", attribute: str) -> int | None:
    """The character's value of ``attribute``, written under its id or any of its labels."""
    if attribute in character.abilities:
        return character.abilities[attribute]
    for lang in ("ja", "en"):
        label = ability_label(ruleset, attribute, lang)
        if label in character.abilities:
            return character.abilities[label]
    return None


@dataclass(frozen=True)
class Character:
    """A character as the palette needs it: its id, name and ability values."""

    id: str
    name: str
    abilities: dict[str, int]


def load_characters(file: str) -> list[Character]:
    """The ``characters`` of a chars.yaml (the campaign's file): ``id``, ``name`` and
    ``abilities`` (a mapping of ability to value); other fields are the campaign's."""
    # start-up: interpreter.documents.loader loads only when load_characters() runs
    from interpreter.documents.loader import load_file

    docs = load_file(file)
    data = docs[0].data if docs else None
    loc = docs[0].loc if docs else (lambda *path: Location(file, 1, 1))
    entries = data.get("characters") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise MprError(BAD_CHARACTERS, loc(), field=file, expected="a mapping with a list `characters`",
                       expected_ja="リスト `characters` を持つマッピングを書いてください")
    characters = []
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise MprError(BAD_CHARACTERS, loc("characters", n), field=f"characters.{n}",
                           expected="a mapping with an id", expected_ja="id を持つマッピングを書いてください")
        abilities = entry.get("abilities") or {}
        if not isinstance(abilities, dict) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in abilities.values()):
            raise MprError(BAD_CHARACTERS, loc("characters", n, "abilities"),
                           field=f"characters.{n}.abilities",
                           expected="a mapping of ability to whole number, e.g. {wits: 12}",
                           expected_ja="能力値を整数で書いたマッピングにしてください（例: {wits: 12}）")
        characters.append(Character(entry["id"], str(entry.get("name") or entry["id"]),
                                    {str(k): v for k, v in abilities.items()}))
    return characters


@dataclass(frozen=True)
class PaletteLine:
    """One check of the palette: ``dice``MP``ability``C``challenge`` and its label."""

    dice: int
    ability: str
    challenge: int
    label: str

    def text(self) -> str:
        notation = f"{self.dice}MP{self.ability}" + (f"C{self.challenge}" if self.challenge > 0 else "")
        return f"{notation} {self.label}"


def palette_lines(ruleset: Ruleset, character: Character | None, inputs: dict[str, Any],
                  lang: str = "ja", note_lang: str | None = None
                  ) -> tuple[list[PaletteLine], list[Note]]:
    """The palette of ``character``: one line per adopted check that is needed with ``inputs``,
    the ability's value from the characters file, else a ``{ability}`` reference the table's character
    sheet fills; and the notes: each check that could not be worked out from ``inputs`` (left out),
    each reference written for an ability the character lacks."""
    # start-up: interpreter.engine loads only when palette_lines() runs
    from interpreter.engine import runner as engine

    lines: list[PaletteLine] = []
    notes: list[Note] = []
    told = note_lang or lang
    for rule in ruleset.rules.values():
        if rule.kind != "Check" or not rule.adopted:
            continue
        attribute = str(rule.doc.get("attribute"))
        given = {k: v for k, v in inputs.items() if k in _input_names(rule)}
        try:
            value = engine.run(ruleset, rule.id, given, lang=lang).value
        except MprError as error:
            notes.append(Note(f"{rule.id}: {error.code} {error.message(told)}", left_out=True))
            continue
        if not value.get("required", True):
            continue
        ability = f"{{{ability_label(ruleset, attribute, lang)}}}"
        known = _ability_value(ruleset, character, attribute) if character is not None else None
        if known is not None:
            ability = str(known)
        elif character is not None:
            notes.append(Note(word(NO_ABILITY, told).format(
                name=character.name, attribute=ability_label(ruleset, attribute, lang),
                ability=ability)))
        lines.append(PaletteLine(int(value["dice"]), ability, int(value["challenge"]),
                                 _title(rule, lang)))
    return lines, notes


def _input_names(rule: Rule) -> set[str]:
    schema = rule.doc.get("inputs") or {}
    return set((schema.get("properties") or {}) if isinstance(schema, dict) else {})


def ccfolia_palette(ruleset: Ruleset, character: Character | None, inputs: dict[str, Any],
                    lang: str = "ja", note_lang: str | None = None) -> tuple[str, list[Note]]:
    """The chat palette of one character (None: no characters file): one command per line and
    nothing else, as CCFOLIA reads a palette; the notes on what was written and what was left out.
    An error when no line at all could be written."""
    told = note_lang or lang
    lines, notes = palette_lines(ruleset, character, inputs, lang, told)
    if not lines:
        none = word(NO_CHECK_RULE, told)
        raise MprError(NO_CHECKS, Location(path="export ccfolia"),
                       detail="; ".join(n.text for n in notes) or none)
    references = sorted({line.ability for line in lines if line.ability.startswith("{")})
    if character is None and references:
        notes.append(Note(word(REFERENCE, told).format(
            abilities=word(LIST_SEPARATOR, told).join(references))))
    return "".join(line.text() + "\n" for line in lines), notes
