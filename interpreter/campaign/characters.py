"""Characters and items of a campaign, read from ``chars.yaml``
(``{characters: [{id, name?, hand?, hand_size?, items?: [{id, name?, held_cards?, held_size?}]}]}``,
and the ``campaign`` section of an export: clock, deck order, discard pile) with every mistake
located at its file:line:column; and dealt onto a shuffled (or the exported) deck."""
from __future__ import annotations


from rules_dsl.dice import DiceSource
from rules_dsl.frozen import Frozen
from rules_dsl.errors import Location, MprError, define
from rules_dsl.words import bilingual, define_word
from interpreter.documents.limits import MAX_INPUT_FILE_BYTES
from interpreter.solvers.limits import MAX_HOLDERS
from interpreter.campaign.limits import MAX_ID_LENGTH

from interpreter.solvers.cards import CARD_TWICE, DeckSpec, DeckState, draw
from interpreter.campaign.state import Holder

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BAD_SHAPE = define(
    "MPR640", "{field} must be {expected[en]}", "{field} には{expected[ja]}を指定してください")
UNKNOWN_FIELD = define(
    "MPR641", "unknown field {field!r} (known: {known})", "不明な項目 {field!r} です（使える項目: {known}）")
DUPLICATE_HOLDER = define(
    "MPR642", "id {id!r} is used twice (characters and items share one set of ids)",
    "ID {id!r} が2回使われています（キャラクターとアイテムのIDは重複できません）")
SIZE_BELOW_GIVEN = define(
    "MPR643", "{field} is {size} but {given} cards are given",
    "{field} は {size} ですが、指定されたカードは {given} 枚です")
TOO_MANY_HOLDERS = define(
    "MPR644", "more than {limit} characters and items", "キャラクターとアイテムが {limit} を超えています")
EXPORT_MISFIT = define(
    "MPR645", "the exported deck and discard pile do not add up, with the hands, to this ruleset's deck "
              "(missing {missing}; not in this deck {extra}): to keep only the hands and shuffle the rest "
              "anew, delete the `campaign` section",
    "書き出された山札と捨て札が、手札と合わせてこのルールセットの山札の構成と一致しません"
    "（不足 {missing}、この山札にないカード {extra}）。手札だけを残して残りをシャッフルし直すには、"
    "`campaign` の項目を削除してください")

# What MPR640 says a field must be given as ("{field} must be ..." / "{field} には...を指定してください").
EXPECTED_MAPPING_WITH_CHARACTERS = define_word(
    "campaign.expected.mapping_with_characters", "a mapping with a list `characters`",
    "リスト `characters` を持つマッピング")
EXPECTED_LIST = define_word("campaign.expected.list", "a list", "リスト")
EXPECTED_CARD_NAMES = define_word(
    "campaign.expected.card_names", "a list of card names (SA, H10, JK1)", "カード名のリスト（SA、H10、JK1 など）")
EXPECTED_RULESET = define_word(
    "campaign.expected_ruleset", "the path of a ruleset directory, or (bundled)",
    "ルールセットのディレクトリのパスか (bundled)")
EXPECTED_ADOPT = define_word(
    "campaign.expected_adopt", "a mapping of rule ids to true or false", "ルール ID から true か false への対応")
EXPECTED_PARAMS = define_word(
    "campaign.expected_params", "a mapping of rule ids to mappings of parameters",
    "ルール ID からパラメータの対応への対応")
EXPECTED_MINUTES = define_word(
    "campaign.expected.minutes", "a whole number of minutes, 0 or more", "0 以上の整数（分）")
EXPECTED_MAPPING = define_word("campaign.expected.mapping", "a mapping", "マッピング")
EXPECTED_GIVEN = define_word("campaign.expected.given", "given", "値")
EXPECTED_ID = define_word(
    "campaign.expected.id", "a name without spaces, commas or invisible characters (control, "
    "zero-width, direction marks), 1-{limit} characters, that can be typed again",
    "空白・カンマ・見えない文字（制御文字、ゼロ幅文字、文字の向きの指定）を含まない、もう一度打ち込める名前"
    "（1〜{limit} 文字）")
EXPECTED_COUNT = define_word("campaign.expected.count", "a whole number, 0 or more", "0 以上の整数")
EXPECTED_TEXT = define_word("campaign.expected.text", "text", "文字列")


def _expected(key: str, **values: object) -> dict[str, str]:
    """What MPR640 says a field must be, in both languages."""
    return {lang: text.format(**values) for lang, text in bilingual(key).items()}

def is_id(value: str) -> bool:
    """An id: 1 to ``MAX_ID_LENGTH`` characters, none of them blank, a comma or invisible (NUL and
    other controls, zero-width characters, bidi marks: what ``str.isprintable`` refuses), so the GM
    can type it again (a plain test, not a regular expression: every campaign command checks its
    ids, and compiling one costs more)."""
    return (0 < len(value) <= MAX_ID_LENGTH and "," not in value and value.isprintable()
            and not any(c.isspace() for c in value))


CHARACTER_FIELDS = ("id", "name", "hand", "hand_size", "items")
ITEM_FIELDS = ("id", "name", "held_cards", "held_size")
TOP_FIELDS = ("characters", "campaign")
CAMPAIGN_FIELDS = ("ruleset", "clock_minutes", "clock", "deck", "discard",
                   "adopt", "param_overrides")  # what `export` writes
BUNDLED_NAME = "(bundled)"  # how an export names the bundled ruleset
SQLITE_MAX_INTEGER = 2**63 - 1


class Seat(Frozen):
    """Where a holder's cards come from: the cards given, and how many it holds in all."""

    __slots__ = ("holder", "given", "size")
    holder: str
    given: tuple[str, ...]
    size: int


def _nowhere(*path: Any) -> Location:
    return Location(path=".".join(map(str, path)))


class Exported(Frozen):
    """The ``campaign`` section of an export: the clock, the deck (top first), the discard pile,
    and the ruleset it was played with (its path, or None for the bundled one; ``adopt`` and
    ``param_overrides`` as pinned)."""

    __slots__ = ("clock_minutes", "deck", "discard", "ruleset", "adopt", "param_overrides")
    _defaults = {"ruleset": None, "adopt": None, "param_overrides": None}
    clock_minutes: int | None
    deck: tuple[str, ...]
    discard: tuple[str, ...]
    ruleset: str | None
    adopt: dict[str, bool] | None
    param_overrides: dict[str, dict] | None


class Roster(Frozen):
    """The holders of a campaign in file order, where their cards come from, where each value
    stands in the file (``loc(*path)``), and the exported deck and clock if the file is an export."""

    __slots__ = ("characters", "items", "seats", "loc", "exported")
    _defaults = {"loc": _nowhere, "exported": None}
    characters: tuple[Holder, ...]
    items: tuple[Holder, ...]
    seats: tuple[Seat, ...]
    loc: Callable[..., Location]
    exported: Exported | None


def load_roster(path: str) -> Roster:
    """Read and check ``chars.yaml``; cards are checked against the deck when dealt."""
    # start-up: interpreter.documents.loader loads only when load_roster() runs
    from interpreter.documents.loader import heed, load_file, single_document

    doc = single_document(load_file(path, max_bytes=MAX_INPUT_FILE_BYTES), path)
    if doc is None:
        raise MprError(BAD_SHAPE, Location(path, 1, 1), field="the file",
                       expected=_expected(EXPECTED_MAPPING_WITH_CHARACTERS))
    heed(doc)
    return parse_roster(doc.data, doc.loc)


def parse_roster(data: Any, loc: Callable[..., Location] = _nowhere) -> Roster:
    """``data`` (plain YAML data) as a roster; ``loc(*path)`` locates a value for messages."""
    _mapping(data, (), TOP_FIELDS, loc, required=("characters",))
    entries = data["characters"]
    if not isinstance(entries, list):
        raise MprError(BAD_SHAPE, loc("characters"), field="characters", expected=_expected(EXPECTED_LIST))
    characters: list[Holder] = []
    items: list[Holder] = []
    seats: list[Seat] = []
    seen: set[str] = set()
    for n, entry in enumerate(entries):
        path = ("characters", n)
        _mapping(entry, path, CHARACTER_FIELDS, loc, required=("id",))
        pc = _id(entry, path, loc, seen)
        characters.append(Holder(pc, _plain(entry, path, loc)))
        seats.append(_seat(pc, entry, path, "hand", "hand_size", loc))
        owned = entry.get("items") or []
        if not isinstance(owned, list):
            raise MprError(BAD_SHAPE, loc(*path, "items"), field=_dotted(*path, "items"), expected=_expected(EXPECTED_LIST))
        for m, item in enumerate(owned):
            ipath = (*path, "items", m)
            _mapping(item, ipath, ITEM_FIELDS, loc, required=("id",))
            item_id = _id(item, ipath, loc, seen)
            items.append(Holder(item_id, _plain(item, ipath, loc), pc))
            seats.append(_seat(item_id, item, ipath, "held_cards", "held_size", loc))
    if len(seen) > MAX_HOLDERS:
        raise MprError(TOO_MANY_HOLDERS, loc("characters"), limit=MAX_HOLDERS)
    exported = _exported(data["campaign"], loc) if "campaign" in data else None
    return Roster(tuple(characters), tuple(items), tuple(seats), loc, exported)


def _exported(section: Any, loc: Callable[..., Location]) -> Exported:
    _mapping(section, ("campaign",), CAMPAIGN_FIELDS, loc, required=("deck",))
    lists = []
    for key in ("deck", "discard"):
        cards = section.get(key) or []
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise MprError(BAD_SHAPE, loc("campaign", key), field=f"campaign.{key}",
                           expected=_expected(EXPECTED_CARD_NAMES))
        lists.append(tuple(cards))
    clock = section.get("clock_minutes")
    if clock is not None and (isinstance(clock, bool) or not isinstance(clock, int)
                              or not 0 <= clock <= SQLITE_MAX_INTEGER):
        raise MprError(BAD_SHAPE, loc("campaign", "clock_minutes"), field="campaign.clock_minutes",
                       expected=_expected(EXPECTED_MINUTES))
    ruleset = section.get("ruleset")
    if ruleset is not None and not isinstance(ruleset, str):
        raise MprError(BAD_SHAPE, loc("campaign", "ruleset"), field="campaign.ruleset",
                       expected=_expected(EXPECTED_RULESET))
    adopt = section.get("adopt") or {}
    if not isinstance(adopt, dict) or not all(isinstance(k, str) and isinstance(v, bool)
                                              for k, v in adopt.items()):
        raise MprError(BAD_SHAPE, loc("campaign", "adopt"), field="campaign.adopt",
                       expected=_expected(EXPECTED_ADOPT))
    params = section.get("param_overrides") or {}
    if not isinstance(params, dict) or not all(isinstance(k, str) and isinstance(v, dict)
                                               for k, v in params.items()):
        raise MprError(BAD_SHAPE, loc("campaign", "param_overrides"), field="campaign.param_overrides",
                       expected=_expected(EXPECTED_PARAMS))
    return Exported(clock, *lists, None if ruleset in (None, "", BUNDLED_NAME) else ruleset,
                    dict(adopt), {k: dict(v) for k, v in params.items()})


def deal(roster: Roster, spec: DeckSpec, deck: DeckState, dice: DiceSource) -> DeckState:
    """Place the given cards first (taken out of the deck), then draw the rest of each holder's
    size from the top of the shuffled deck, holders in file order."""
    taken: dict[str, int] = {}
    holders = [h.id for h in (*roster.characters, *roster.items)]
    order = {h: i for i, h in enumerate(holders)}
    held: dict[str, tuple[str, ...]] = {h: () for h in holders}
    for seat in sorted(roster.seats, key=lambda s: order[s.holder]):
        for index, card in enumerate(seat.given):
            where = _seat_loc(roster, seat, index)
            spec.require_card(card, where)
            if card in taken:
                raise MprError(CARD_TWICE, where, card=card)
            taken[card] = 1
        held[seat.holder] = seat.given
    state = DeckState(tuple(c for c in deck.deck if c not in taken), deck.discard,
                      tuple((h, held[h]) for h in holders))
    for seat in sorted(roster.seats, key=lambda s: order[s.holder]):
        state = draw(state, spec, seat.holder, seat.size - len(seat.given), dice).state
    return state


def restore(roster: Roster, spec: DeckSpec, dice: DiceSource) -> DeckState:
    """The cards of an export: the hands as given, the deck and discard pile in their exported
    order; every card of the composition must be in exactly one place."""
    exported = roster.exported
    assert exported is not None, "restore() is called for a roster that carries an export"
    given = {card for seat in roster.seats for card in seat.given}
    seen: set[str] = set()
    for key in ("deck", "discard"):
        for index, card in enumerate(getattr(exported, key)):
            if card in seen or card in given:
                raise MprError(CARD_TWICE, roster.loc("campaign", key, index), card=card)
            seen.add(card)
    known = set(spec.composition)
    missing = [card for card in spec.composition if card not in seen and card not in given]
    extra = [card for card in (*exported.deck, *exported.discard) if card not in known]
    if missing or extra:
        raise MprError(EXPORT_MISFIT, roster.loc("campaign"), missing=", ".join(missing) or "-",
                       extra=", ".join(extra) or "-")
    return deal(roster, spec, DeckState(exported.deck, exported.discard), dice)


def _seat_loc(roster: Roster, seat: Seat, index: int) -> Location:
    loc = roster.loc
    for n, pc in enumerate(roster.characters):
        if pc.id == seat.holder:
            return loc("characters", n, "hand", index)
    owners = [h.id for h in roster.characters]
    for item in roster.items:
        if item.id == seat.holder and item.owner is not None:
            n = owners.index(item.owner)
            m = [i.id for i in roster.items if i.owner == item.owner].index(item.id)
            return loc("characters", n, "items", m, "held_cards", index)
    return Location(path=seat.holder)


def _mapping(value: Any, path: tuple, known: tuple[str, ...], loc: Any,
             required: tuple[str, ...] = ()) -> None:
    if not isinstance(value, dict):
        raise MprError(BAD_SHAPE, loc(*path), field=_dotted(*path) or "the file", expected=_expected(EXPECTED_MAPPING))
    for key in value:
        if key not in known:
            raise MprError(UNKNOWN_FIELD, loc(*path, key), field=str(key), known=", ".join(known))
    for key in required:
        if key not in value:
            raise MprError(BAD_SHAPE, loc(*path), field=_dotted(*path, key), expected=_expected(EXPECTED_GIVEN))


def _id(entry: dict, path: tuple, loc: Any, seen: set[str]) -> str:
    value = entry["id"]
    if not isinstance(value, str) or not is_id(value):
        raise MprError(BAD_SHAPE, loc(*path, "id"), field=_dotted(*path, "id"),
                       expected=_expected(EXPECTED_ID, limit=MAX_ID_LENGTH))
    if value in seen:
        raise MprError(DUPLICATE_HOLDER, loc(*path, "id"), id=value)
    seen.add(value)
    return value


def _seat(holder: str, entry: dict, path: tuple, cards_key: str, size_key: str, loc: Any) -> Seat:
    given = entry.get(cards_key) or []
    if not isinstance(given, list) or not all(isinstance(c, str) for c in given):
        raise MprError(BAD_SHAPE, loc(*path, cards_key), field=_dotted(*path, cards_key),
                       expected=_expected(EXPECTED_CARD_NAMES))
    size = entry.get(size_key, len(given))
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise MprError(BAD_SHAPE, loc(*path, size_key), field=_dotted(*path, size_key),
                       expected=_expected(EXPECTED_COUNT))
    if size < len(given):
        raise MprError(SIZE_BELOW_GIVEN, loc(*path, size_key), field=_dotted(*path, size_key),
                       size=size, given=len(given))
    return Seat(holder, tuple(given), size)


def _plain(entry: dict, path: tuple, loc: Callable[..., Location]) -> dict[str, Any]:
    """The descriptive fields kept as they are (``name``)."""
    if "name" in entry and not isinstance(entry["name"], str):
        raise MprError(BAD_SHAPE, loc(*path, "name"), field=_dotted(*path, "name"), expected=_expected(EXPECTED_TEXT))
    return {"name": entry["name"]} if "name" in entry else {}


def _dotted(*path: Any) -> str:
    return ".".join(map(str, path))
