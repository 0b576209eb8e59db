"""Campaign reliability that the hostile corpus cannot show as one command: the bound on card
moves, holders named by name, the ruleset pinned by absolute path, the log as text, read-only
commands leaving no trace, and dawn refusing an owner without a hand."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from campaign_support import dump, make_campaign, make_ruleset  # noqa: E402

from interpreter.campaign import commands, timeline  # noqa: E402
from interpreter.campaign.store import Store  # noqa: E402
from interpreter.cli import main  # noqa: E402
from interpreter.kinds.circulation import all_holders as dawn  # noqa: E402
from interpreter.solvers.cards import DeckSpec, DeckState  # noqa: E402
from rules_dsl.dice import SeededDice  # noqa: E402
from rules_dsl.errors import MprError  # noqa: E402

MANY = {"characters": [{"id": f"p{n}", "name": f"名{n}", "hand_size": 1,
                        "items": [{"id": f"i{n}", "held_size": 1}]} for n in range(5)]}


@pytest.mark.parametrize("limit, refused", [(5 * 2, False), (5 * 2 - 1, True)])
def test_card_moves_at_and_past_the_bound(limit: int, refused: bool, tmp_path: Path,
                                          monkeypatch) -> None:
    """Two dawns for five items holding cards are 10 circulations."""
    monkeypatch.setattr(timeline, "MAX_CARD_MOVES", limit)
    path = make_campaign(tmp_path, chars=MANY)
    before = dump(path)
    with Store.open(path) as store:
        if refused:
            with pytest.raises(MprError) as caught:
                commands.advance(store, 2 * 24 * 60, seed=1)
            assert caught.value.code == "MPR684"
        else:
            commands.advance(store, 2 * 24 * 60, seed=1)
    assert (dump(path) == before) == refused


def test_dawn_refuses_an_owner_without_a_hand() -> None:
    spec = DeckSpec.from_params({"suits": ["S"], "ranks": ["A", "2", "3", "4"], "on_empty": "error"})
    state = DeckState(("S3", "S4"), (), (("rin", ()), ("bat", ("SA",)), ("box", ("S2",))))
    moved = dawn(state, spec, [("bat", "rin")], "owner_hand", SeededDice(1)).state
    assert moved.held("rin") and not moved.held("bat")
    for owner in ("ghost", "box"):
        with pytest.raises(MprError) as caught:
            dawn(state, spec, [("bat", owner), ("box", "rin")], "owner_hand", SeededDice(1))
        assert caught.value.code == "MPR682"


@pytest.mark.parametrize("given, expected", [("p1", "p1"), ("名1", "p1"), ("名１", "p1"), ("i2", "i2")])
def test_holders_by_id_or_name(given: str, expected: str, tmp_path: Path) -> None:
    path = make_campaign(tmp_path, chars=MANY)
    with Store.open(path) as store:
        result = commands.circulate(store, given, take_all=True, seed=1)
    assert result["holder"] == expected and result["changes"][0]["holder"] == expected


def test_a_shared_name_is_refused_with_the_ids(tmp_path: Path) -> None:
    chars = {"characters": [{"id": "kai", "name": "カイ", "hand_size": 1},
                            {"id": "kai2", "name": "カイ", "hand_size": 1}]}
    path = make_campaign(tmp_path, chars=chars)
    with Store.open(path) as store, pytest.raises(MprError) as caught:
        commands.sleep(store, "カイ", 8, seed=1)
    assert caught.value.code == "MPR683" and "kai, kai2" in caught.value.message("ja")


def test_the_ruleset_is_pinned_by_absolute_path(tmp_path: Path, monkeypatch, capsys) -> None:
    make_ruleset(tmp_path / "a" / "rules")
    (tmp_path / "a" / "chars.yaml").write_text(yaml.safe_dump(MANY, allow_unicode=True), encoding="utf-8")
    (tmp_path / "b" / "rules").mkdir(parents=True)  # a different folder of the same name
    monkeypatch.chdir(tmp_path / "a")
    assert main(["campaign", "init", "c.db", "--characters", "chars.yaml", "--ruleset", "rules",
                 "--seed", "1"]) == 0
    assert dump(str(tmp_path / "a" / "c.db"))["pin"]["path"] == str(tmp_path / "a" / "rules")
    monkeypatch.chdir(tmp_path / "b")
    assert main(["campaign", "dawn", "../a/c.db", "--seed", "1"]) == 0
    assert main(["campaign", "repin", "../a/c.db"]) == 0
    assert "MPR665" in capsys.readouterr().out  # the same ruleset: nothing to re-pin
    rules = tmp_path / "a" / "rules" / "rest.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert main(["--lang", "en", "campaign", "dawn", "../a/c.db"]) == 1
    err = capsys.readouterr().err
    pinned = dump(str(tmp_path / "a" / "c.db"))["pin"]["content_hash"][:12]
    assert "MPR632" in err and pinned in err and "now " in err


LOG = [
    ("ja", ["からキャンペーンを始めた", "p0が", "#2 リンが 8 時間眠った"], ["の手札", "を捨て、", "を引いた"]),
    ("en", ["#1 started the campaign from", "p0 drew", "#2 リン slept 8 hours"],
     ["discarded", "and drew"]),
]


@pytest.mark.parametrize("lang, init_words, sleep_words", LOG)
def test_the_log_reads_as_a_log(lang: str, init_words: list[str], sleep_words: list[str],
                                tmp_path: Path, capsys) -> None:
    path = make_campaign(tmp_path, chars={"characters": [{"id": "p0", "hand_size": 2},
                                                         {"id": "rin", "name": "リン", "hand_size": 2}]})
    assert main(["campaign", "sleep", path, "リン", "--hours", "8", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["--lang", lang, "campaign", "log", path]) == 0
    text = capsys.readouterr().out
    assert all(w in text for w in init_words + sleep_words) and "リン" in text, text
    assert "[" not in text and "'" not in text, text
    assert main(["campaign", "log", path, "--format", "json"]) == 0
    assert '"names"' not in capsys.readouterr().out


def test_read_only_commands_leave_no_wal_or_shm(tmp_path: Path, capsys) -> None:
    path = make_campaign(tmp_path)
    for command in ("show", "log", "export"):
        assert main(["campaign", command, path]) == 0
        assert not os.path.exists(path + "-wal") and not os.path.exists(path + "-shm"), command
    capsys.readouterr()
