"""What a campaign command loads: SQLite through the C module itself (the very objects the
package ``sqlite3`` exposes, without its date and time helpers); for a command that only reads,
none of the modules that only the commands that change a campaign need; for passing time, not
the engine's kinds, nor what init, brief or the reading commands need. And the schema a campaign
file must have, read off the migrations, is what SQLite makes of them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sqlite3
from interpreter.campaign import files, integrity
from interpreter.campaign.store import MIGRATIONS

ROOT = Path(__file__).resolve().parents[2]

CHARACTERS = """\
characters:
  - {id: rin, name: リン, hand_size: 4, items: [{id: lamp, held_size: 2}]}
  - {id: kai, name: カイ, hand_size: 4}
"""


@pytest.mark.parametrize("name", [
    "connect", "Connection", "Cursor", "Row", "Error", "Warning", "DatabaseError", "IntegrityError",
    "ProgrammingError", "OperationalError", "InterfaceError", "InternalError", "NotSupportedError",
    "DataError", "sqlite_version",
])
def test_the_campaign_sqlite_name_is_the_sqlite3_package(name) -> None:
    assert getattr(files.sqlite3, name) is getattr(sqlite3, name)


def _modules(argv: list[str], cwd: Path) -> list[str]:
    """The modules ``mprules ARGV`` has loaded when it ends (a fresh interpreter, run twice: the
    first run fills the ruleset cache)."""
    code = ("import sys, json; from interpreter.cli import main; status = main(%r); "
            "print(json.dumps([status, sorted(sys.modules)]))" % (argv,))
    env = dict(os.environ, MPRULES_CACHE_DIR=str(cwd / "cache"))
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                             env=env, check=True)
    status, modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert status == 0, out.stderr
    return modules


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("startup")
    (folder / "chars.yaml").write_text(CHARACTERS, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "interpreter", "campaign", "init", "c.mpc",
                           "--characters", "chars.yaml", "--seed", "1"], capture_output=True, text=True,
                          cwd=folder, env=dict(os.environ, MPRULES_CACHE_DIR=str(folder / "cache")))
    assert done.returncode == 0, done.stderr
    return folder


NEVER = {"datetime", "sqlite3", "sqlite3.dbapi2"}
# What only init (the roster), brief (the package kind) and the engine's kinds need.
NOT_TO_PASS_TIME = {"interpreter.campaign.characters", "interpreter.kinds.package", "interpreter.kinds.circulation",
                    "interpreter.engine.registry", "interpreter.campaign.views"}
# What only the commands that change a campaign need.
NOT_TO_READ = NOT_TO_PASS_TIME - {"interpreter.campaign.views"} | {
    "interpreter.campaign.commands", "interpreter.campaign.timeline", "interpreter.ruleset.wiring",
    "interpreter.solvers.circulation", "rules_dsl.dice"}


@pytest.mark.parametrize("command, unused", [
    (["show"], NOT_TO_READ), (["log", "--last", "2"], NOT_TO_READ),
    (["sleep", "rin", "--hours", "8"], NOT_TO_PASS_TIME), (["dawn"], NOT_TO_PASS_TIME),
])
def test_a_campaign_command_loads_only_what_it_uses(command, unused, campaign) -> None:
    loaded = set(_modules(["campaign", command[0], "c.mpc", *command[1:]], campaign))
    assert (NEVER | unused) & loaded == set()


def test_the_expected_schema_read_off_the_migrations_is_what_sqlite_makes() -> None:
    migrations = tuple(MIGRATIONS)
    assert integrity._expected(migrations) == integrity.made_in_memory(migrations)
    altered = (*migrations, (3, "ALTER TABLE cards ADD COLUMN note TEXT"))
    assert integrity._expected(altered) == integrity.made_in_memory(altered)
    assert ("table", "cards", "CREATE TABLE cards (card TEXT PRIMARY KEY, place TEXT NOT NULL CHECK (place IN "
            "('deck', 'discard', 'held')), holder TEXT, position INTEGER NOT NULL, "
            "CHECK ((place = 'held') = (holder IS NOT NULL)))") in integrity._expected(migrations)
