"""``run`` and ``prob RULE`` say the same, byte for byte, with every cache off, on a cold cache and
on a warm one (#26: the warm path reads kept input texts, one pickled rule and kept code instead of
PyYAML, the whole ruleset and the parser): values, explanations, warnings, errors with their
file:line:column, and exit codes. Each command runs in a fresh process, as a GM runs it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "in.yaml": "item: {materials: [鋼], quality: 標準}\n",
    "fine.yaml": "item: {materials: [合金, 鋼], quality: 上質, design: 銘}\nsituation: 1\n",
    "enum.yaml": "item:\n  materials: [鋼]\n  quality: 最高\n",  # not among the qualities: MPR500 at 3:12
    "syntax.yaml": "item: {materials: [鋼], quality: 標準\n",  # a bracket left open
    "tab.yaml": "item:\n\tmaterials: [鋼]\n",
    "two.yaml": "item: {materials: [鋼], quality: 標準}\n---\nitem: {}\n",
    "yes.yaml": "item: {materials: [鋼], quality: 標準, ma_gear: yes}\n",  # read differently: MPR325
    "list.yaml": "- 1\n- 2\n",
    "empty.yaml": "# nothing\n",
    "sjis.yaml": "item: {materials: [鋼], quality: 標準}\n".encode("cp932"),
    # other kinds (#26: each run loads only what it uses)
    "leisure.yaml": "{table: city, safety: 2, residents: [アキラ, ベル]}\n",
    "leisure_bad.yaml": "{table: town, safety: 2, residents: [アキラ]}\n",  # no such table: MPR542
    "check.yaml": "intellect: 12\nitem: {materials: [鋼], quality: 傑作}\n",
    "rent.yaml": "cost: 6\nresidents: [アキラ, ベル, カイ]\n",
    "rent_bad.yaml": "cost: -6\nresidents: [アキラ, ベル]\n",
    "cover.yaml": "areas: [front, middle, rear]\nattack: {attacker: ogre, step: damage_calculation, target: mage}\n"
                  "characters:\n- {acted: false, area: middle, hp: 20, id: knight, turn_started: false}\n"
                  "- {acted: false, area: rear, hp: 8, id: mage, turn_started: false}\n"
                  "- {acted: true, area: front, hp: 30, id: ogre, turn_started: true}\nround: 1\nuser: knight\n",
    "gear.yaml": "available_slots: 2\nitem: {base_effects: [base_a], ma_gear_effects: [gear_a, gear_b], slots_required: 2}\n",
    "setup.yaml": "costs: {region: 2, residence: 3}\nfacility_data: {工房: {shareable: true}, 祭壇: {shareable: false}}\n"
                  "residents:\n- {activities: [研究], facilities: [工房], id: アキラ, occupation: 技師, region: 下町, "
                  "residence: 集合住宅}\n- {activities: [], facilities: [祭壇], id: ベル, occupation: 傭兵, region: 下町, "
                  "residence: 集合住宅}\n",
    "rebuild.yaml": "after: {body: 20, intellect: 10, magic: 5, sense: 10}\n"
                    "before: {body: 12, intellect: 12, magic: 9, sense: 12}\n",
}
ITEM = "item={materials: [鋼], quality: 傑作}"
COMMANDS = [
    ["run", "procurement.rarity", "--input", "in.yaml"],
    ["run", "procurement.rarity", "--input", "fine.yaml"],
    ["run", "procurement.rarity", "--input", "in.yaml", "--format", "json", "--seed", "1"],  # else a seed is drawn
    ["run", "procurement.rarity", "--input", "in.yaml", "--lang", "ja"],
    ["run", "procurement.rarity", "--input", "fine.yaml", "--param", "procurement.rarity.max_rarity=1"],
    ["run", "procurement.rarity", "--input", "in.yaml", "--param", "procurement.rarity.max_rarity=[1"],
    ["run", "procurement.rarity", "--input", "in.yaml", "--param", "procurement.rarity.nothing=1"],
    ["run", "procurement.rarity", "--input", "enum.yaml"],
    ["run", "procurement.rarity", "--input", "enum.yaml", "--lang", "ja"],
    ["run", "procurement.rarity", "--input", "syntax.yaml"],
    ["run", "procurement.rarity", "--input", "tab.yaml"],
    ["run", "procurement.rarity", "--input", "two.yaml"],
    ["run", "procurement.rarity", "--input", "yes.yaml"],
    ["run", "procurement.rarity", "--input", "list.yaml"],
    ["run", "procurement.rarity", "--input", "empty.yaml"],
    ["run", "procurement.rarity", "--input", "sjis.yaml"],
    ["run", "procurement.rarity", "--input", "missing.yaml"],
    ["run", "procurement.rarity", "--input", "."],
    ["run", "procurement.rarity", "--input", "-"],
    ["run", "procurement.rarty", "--input", "in.yaml"],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", ITEM],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", ITEM, "--format", "json"],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", ITEM, "--lang", "ja"],
    ["prob", "procurement.check", "--var", "intellect=9", "--input", "in.yaml"],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", "item={materials: [鋼]"],
    ["prob", "procurement.check", "--var", "intellect=yes", "--var", ITEM],
    ["prob", "procurement.check", "--var", "intellect=0x0C", "--var", ITEM],
    ["prob", "procurement.check", "--var", "intellect=12", "--input", "syntax.yaml"],
    # the kinds of the other bundled rules, and a check without its ability (one row per value)
    ["prob", "procurement.check", "--var", ITEM],
    ["prob", "procurement.check", "--var", ITEM, "--format", "json"],
    ["prob", "procurement.check", "--var", "intellect=12", "--var", "item={materials: [魔煌銀], quality: 伝説}"],
    ["run", "procurement.check", "--input", "check.yaml", "--seed", "1"],
    ["run", "procurement.check", "--input", "check.yaml", "--seed", "1", "--format", "json"],
    ["run", "procurement.check", "--input", "check.yaml"],  # no seed: no roll, the chance alone
    ["run", "cohabitation.leisure.city", "--seed", "1"],
    ["run", "cohabitation.leisure.city", "--seed", "1", "--format", "json"],
    ["run", "cohabitation.leisure", "--input", "leisure.yaml", "--seed", "3"],
    ["run", "cohabitation.leisure", "--input", "leisure.yaml", "--seed", "3", "--lang", "ja"],
    ["run", "cohabitation.leisure", "--input", "leisure_bad.yaml", "--seed", "3"],
    ["prob", "cohabitation.leisure.city"],
    ["prob", "cohabitation.leisure", "--input", "leisure.yaml"],
    ["prob", "procurement.rarity", "--input", "in.yaml"],  # a SumTable has no distribution
    ["prob", "procurement.chek", "--var", ITEM],
    ["run", "cohabitation.rent_split", "--input", "rent.yaml"],
    ["run", "cohabitation.rent_split", "--input", "rent_bad.yaml"],
    ["run", "combat.cover", "--input", "cover.yaml"],
    ["run", "equipment.ma_gear", "--input", "gear.yaml"],
    ["run", "cohabitation.setup", "--input", "setup.yaml"],
    ["run", "rebuild.abilities", "--input", "rebuild.yaml"],
    # the warm path of run (#26): dice given or seeded, JSON without json, an error placed by the
    # positions the cache keeps apart (the rule's, then the ruleset's parameters')
    ["run", "cohabitation.leisure.city", "--dice", "3,4"],
    ["run", "cohabitation.leisure.city", "--dice", "3,4", "--format", "json", "--lang", "ja"],
    ["run", "cohabitation.leisure.city", "--dice", "3"],
    ["run", "cohabitation.leisure", "--input", "leisure.yaml", "--dice", "3,4,5,6", "--format", "json"],
    ["run", "procurement.rarity", "--input", "enum.yaml", "--format", "json"],
    ["run", "cohabitation.leisure.city", "--param", "cohabitation.leisure.city.roll=1d6", "--seed", "2"],
    ["run", "cohabitation.leisure.city", "--param", "cohabitation.leisure.city.roll=[", "--seed", "2"],
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("warm")
    for name, text in FILES.items():
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (where / name).write_bytes(data)
    return where


def _run(argv: list[str], folder: Path, cache: str | None) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPRULES_")}
    env.update(PYTHONPATH=str(ROOT), LANG="C.UTF-8", COLUMNS="100")
    if cache is None:
        env["MPRULES_NO_CACHE"] = "1"
    else:
        env["MPRULES_CACHE_DIR"] = cache
    done = subprocess.run([sys.executable, "-m", "interpreter", *argv], cwd=folder, env=env,
                          input=FILES["in.yaml"].encode("utf-8"), capture_output=True, check=False)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


# A few run with every test run; the whole table (three fresh processes a command) is slow.
FAST = {0, 2, 7, 9, 20, 24, 28, 31, 34, 36, 40, 44, 47, 49, 50, 52, 53, 54}


@pytest.mark.parametrize("argv", [argv if i in FAST else pytest.param(argv, marks=pytest.mark.slow)
                                  for i, argv in enumerate(COMMANDS)], ids=lambda argv: " ".join(argv))
def test_cold_and_warm_say_the_same(argv, folder) -> None:
    cache = str(folder / "cache")
    off = _run(argv, folder, None)
    first = _run(argv, folder, cache)  # fills what this command keeps
    warm = _run(argv, folder, cache)
    assert first == off
    assert warm == off
    assert "Traceback" not in off[2] and off[0] != 70, off


def test_the_table_covers_findings_at_their_place(folder) -> None:
    """The table is not all successes: errors located at file:line:column are among it."""
    status, _, err = _run(["run", "procurement.rarity", "--input", "enum.yaml"], folder, None)
    assert status == 1 and "enum.yaml:3:" in err
    status, _, err = _run(["run", "procurement.rarity", "--input", "syntax.yaml"], folder, None)
    assert status != 0 and "syntax.yaml:" in err and "MPR206" in err
