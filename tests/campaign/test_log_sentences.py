"""``campaign log`` in text reads as sentences in the GM's language: each command says what it did
with its inputs (holders by name), the inputs its sentence does not use follow in words, lists
joined as the language joins them; JSON keeps the journal's inputs as they are."""
from __future__ import annotations

import pytest

from interpreter.campaign.render import log_lines

ENTRIES = [
    {"seq": 3, "command": "circulate", "seed": 7, "undone_by": None, "changes": [],
     "inputs": {"holder": "rin", "all": False, "count": 2, "select": "gm", "cards": ["HQ", "SA"]}},
    {"seq": 4, "command": "advance", "seed": None, "undone_by": 5, "changes": [],
     "inputs": {"minutes": 90}},
    {"seq": 5, "command": "undo", "seed": None, "undone_by": None, "changes": [],
     "inputs": {"seq": 4}},
    {"seq": 6, "command": "brief", "seed": None, "undone_by": None, "changes": [],
     "inputs": {"tier": "instant", "pc": "rin", "option": "偵察", "new": True}},
    {"seq": 7, "command": "someday", "seed": None, "undone_by": None, "changes": [],
     "inputs": {"x": 1}},
]


@pytest.mark.parametrize("lang, expected", [
    ("ja", ["#3 リンの札を循環させた（2 枚、選び方 gm、HQ、SA を指定）（シード 7）",
            "#4 90 分が過ぎた（#5 で取り消し）",
            "#5 #4 を取り消した",
            "#6 リンがブリーフィング（instant）で 偵察 を選んだ（新しいブリーフィング）",
            "#7 someday（x 1）"]),
    ("en", ["#3 リン's cards circulated (2 cards, chosen by gm, cards HQ, SA) (seed 7)",
            "#4 90 minutes passed (undone by #5)",
            "#5 #4 undone",
            "#6 リン took 偵察 in the instant briefing (a new briefing)",
            "#7 someday (x 1)"]),
])
def test_each_command_is_a_sentence(lang: str, expected: list[str]) -> None:
    lines = log_lines({"entries": ENTRIES, "names": {"rin": "リン"}, "characters": ["rin"]}, lang)
    assert lines == expected
    assert not any("count" in line or "holder" in line for line in lines)


FIELD_TEMPLATES = ["{a}", "{{a}", "{a{b}", "{pc}が {hours} 時間眠った", "{how[en]}", "{}", "{é_1}", "{a b}",
                   "}{a}", "{a}{b}{a}", "no fields", "{0}", "{a", "a}"]


@pytest.mark.parametrize("template", FIELD_TEMPLATES)
def test_a_templates_fields_are_the_names_in_braces(template: str) -> None:
    """The fields of a command's sentence: what ``\\{(\\w+)\\}`` finds (read without ``re``)."""
    import re

    from interpreter.campaign.render import _fields

    assert _fields(template) == set(re.findall(r"\{(\w+)\}", template))
