"""The hostile-input corpus (tests/hostile/cases.yaml): every case runs the real ``mprules`` command
in its own subprocess under 512 MB of address space and 5 s of CPU, with an audit hook that ends
the process if it opens a socket, runs a program or opens a file outside the case's reach; each
must end with its expected code and exit status, never a traceback, a hang or a memory blow-up.

Run ``python3 tests/reliability/test_hostile.py`` for the table of every case's time and peak memory.
"""
from __future__ import annotations

import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
CASES: list[dict[str, Any]] = yaml.safe_load((HOSTILE / "cases.yaml").read_text(encoding="utf-8"))
MEMORY_BYTES = 512 * 1024 * 1024
CPU_SECONDS = 5
WALL_SECONDS = 15  # a hang that sleeps instead of computing; the CPU limit is the 5 s bound
CODE = re.compile(r"\bMPR\d{3}\b")
NOT_UTF8 = os.fsdecode(b"\xff\xfe")  # "{not_utf8}" in a case's arguments: bytes that are not UTF-8
VIA = ("validate", "run", "eval", "check", "prob", "campaign", "test", "args")

# The audit hook of every case: exit 97 on running a program, 98 on a network call, 99 on opening
# a file that no case may read. A secret file stands in for /etc/passwd in the file:// cases.
DRIVER = r"""
import os, sys
FORBIDDEN = tuple(os.environ["HOSTILE_FORBIDDEN"].split(os.pathsep))
def _hook(event, args):
    if event in ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen"):
        os.write(2, b"HOSTILE: ran a program\n"); os._exit(97)
    if event.startswith(("socket.", "urllib.", "http.client.")):
        os.write(2, b"HOSTILE: network " + event.encode() + b"\n"); os._exit(98)
    if event == "open" and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        if path.startswith(FORBIDDEN):
            os.write(2, b"HOSTILE: opened " + path.encode() + b"\n"); os._exit(99)
sys.addaudithook(_hook)
sys.path.insert(0, os.environ["HOSTILE_ROOT"])
from interpreter.cli import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Outcome:
    exit: int
    stdout: str
    stderr: str
    seconds: float  # wall time
    cpu: float
    peak_kb: int  # largest resident set of the process


def _limits(close_stdout: bool = False, file_bytes: int | None = None, close: tuple[int, ...] = ()) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    if file_bytes is not None:  # a full disk: writes past this size fail with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    if close_stdout:
        os.close(1)
    for fd in close:  # standard input or error closed (`<&-`, `2>&-`)
        os.close(fd)
    os.setsid()


def _stdout(mode: str | None) -> tuple[Any, Any]:
    """Where a case's standard output goes: a file to read back, /dev/full, a pipe nobody reads
    (``broken``) or nothing (``closed``); and what to close after the run."""
    if mode == "full":
        stream = open("/dev/full", "wb")  # noqa: SIM115
        return stream, stream
    if mode == "broken":
        read, write = os.pipe()
        os.close(read)
        return write, None
    return tempfile.TemporaryFile(), None


def run_cli(argv: list[str], cwd: Path, *, stdin: bytes | None = None,
            forbidden: tuple[str, ...] = ("/etc/passwd", "/etc/shadow"), stdout: str | None = None,
            file_bytes: int | None = None, close: tuple[int, ...] = (),
            env: dict[str, str] | None = None) -> Outcome:
    """``mprules ARGV`` in a limited subprocess; its exit status, output, time and peak memory.
    ``stdout`` is ``full``, ``broken`` or ``closed`` for the cases about output that cannot be
    written; ``file_bytes`` limits the size of any file it writes (a full disk)."""
    env = {**os.environ, "HOSTILE_ROOT": str(ROOT), "HOSTILE_FORBIDDEN": os.pathsep.join(forbidden),
           "MPRULES_LANG": "en", "PYTHONHASHSEED": "0", **(env or {})}
    out, extra = _stdout(stdout)
    err = tempfile.TemporaryFile()
    source = subprocess.PIPE if stdin is not None else subprocess.DEVNULL
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, "-c", DRIVER, *argv], cwd=cwd, env=env,
                               stdin=source, stdout=out, stderr=err,
                               preexec_fn=lambda: _limits(stdout == "closed", file_bytes, close))
    if isinstance(out, int):
        os.close(out)
    if extra is not None:
        extra.close()
    if stdin is not None:
        try:
            process.stdin.write(stdin)
        except BrokenPipeError:
            pass
        process.stdin.close()
    status, usage = 0, None
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > WALL_SECONDS:
            os.killpg(process.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.005)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    printed = b""
    if hasattr(out, "seek") and not isinstance(out, int) and extra is None:
        out.seek(0)
        printed = out.read()
    err.seek(0)
    return Outcome(process.returncode, printed.decode("utf-8", "replace"),
                   err.read().decode("utf-8", "replace"), seconds,
                   usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


# -- the material of a case ----------------------------------------------------------------------

def content(case: dict[str, Any]) -> bytes | None:
    """The bytes of a case: a corpus file, an inline string, or pieces repeated (``build``)."""
    if "file" in case:
        return (HOSTILE / case["file"]).read_bytes()
    if "string" in case:
        return case["string"].encode("utf-8")
    if "build" in case:
        return "".join(str(piece) * count for piece, count in case["build"]).encode("utf-8")
    return None


def _campaign(tmp: Path) -> Path:
    """A real campaign file made by ``mprules campaign init``, in-process (fast)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from campaign_support import make_campaign

    (tmp / "made").mkdir()
    return Path(make_campaign(tmp / "made"))


def _sqlite(path: Path, script: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(script)
    finally:
        conn.close()


def make(name: str, tmp: Path) -> Path:
    """The files that only exist at test time: campaign files, FIFOs, symlink loops, devices."""
    if name.startswith("campaign_"):
        path = _campaign(tmp)
        data = path.read_bytes()
        target = tmp / "campaign.db"
        if name == "campaign_truncated":
            target.write_bytes(data[: len(data) // 2])
        elif name == "campaign_header_only":
            target.write_bytes(data[:100])
        elif name == "campaign_random_tail":
            target.write_bytes(data[:100] + random.Random(7).randbytes(len(data) - 100))
        elif name == "campaign_newer_version":
            shutil.copy(path, target)
            _sqlite(target, "INSERT INTO schema_version (version) VALUES (999);")
        elif name == "campaign_no_data":
            shutil.copy(path, target)
            _sqlite(target, "DELETE FROM cards; DELETE FROM briefing_uses; DELETE FROM items; "
                            "DELETE FROM characters; DELETE FROM campaign; DELETE FROM ruleset;")
        elif name == "campaign_card_missing":
            shutil.copy(path, target)
            _sqlite(target, "DELETE FROM cards WHERE card = "
                            "(SELECT card FROM cards WHERE place = 'deck' LIMIT 1);")
        elif name == "campaign_valid":
            shutil.copy(path, target)
        elif name == "campaign_hot_journal":  # another program's unfinished rollback journal
            shutil.copy(path, target)
            Path(f"{target}-journal").write_bytes(bytes.fromhex("d9d505f920a163d7") + b"\0\0\0\1"
                                                  + bytes(range(16)) + b"\0" * 4068)
        elif name == "campaign_temporaries":  # what a killed `init --force` left (its process is gone)
            shutil.copy(path, target)
            gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True).stdout.strip()
            for suffix in ("", "-wal", "-shm"):
                (tmp / f".campaign.db.{gone}.0badc0de.tmp{suffix}").write_bytes(b"left by a killed writer")
            (tmp / "dead.pid").write_text(gone, encoding="utf-8")
        elif name == "campaign_past_limit":  # sparse: past the 256 MB limit, no disk used
            shutil.copy(path, target)
            with open(target, "r+b") as stream:
                stream.truncate(256_000_001)
        else:
            raise ValueError(name)
        return target
    target = tmp / name.replace("chars_yaml", "chars.yaml")
    if name == "sqlite_foreign":
        _sqlite(target, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);"
                        "INSERT INTO notes (text) VALUES ('not a campaign');")
    elif name == "sqlite_fake_application_id":
        _sqlite(target, "PRAGMA application_id = 1297109571; CREATE TABLE x (y);")
    elif name == "random_bytes":
        target.write_bytes(bytes(range(256)) * 64)
    elif name == "fifo.yaml":
        os.mkfifo(target)
    elif name == "loop":
        from interpreter.documents.resources import bundled_ruleset

        shutil.copytree(bundled_ruleset(), target)
        os.mkfifo(target / "fifo.yaml")
        (target / "self").symlink_to(target, target_is_directory=True)
        (target / "a.yaml").symlink_to(target / "b.yaml")
        (target / "b.yaml").symlink_to(target / "a.yaml")
    elif name == "symlink_fanout":
        target.mkdir()
        shutil.copy(HOSTILE / "yaml" / "date_title.yaml", target / "rule.yaml")
        for link in ("a", "b", "c"):
            (target / link).symlink_to(target, target_is_directory=True)
    elif name == "ruleset_copy":
        from interpreter.documents.resources import bundled_ruleset

        target = tmp / "rules"
        shutil.copytree(bundled_ruleset(), target)
    elif name == "directory":
        target.mkdir()
    elif name == "not_utf8_names":  # characters and a ruleset under names that are not UTF-8
        target = tmp / f"{NOT_UTF8}.yaml"
        make("chars_yaml", tmp).rename(target)
        from interpreter.documents.resources import bundled_ruleset

        shutil.copytree(bundled_ruleset(), tmp / f"rules{NOT_UTF8}")
    elif name == "chars_yaml":
        target.write_text("characters:\n  - {id: rin, name: リン, hand_size: 4}\n"
                          "  - {id: kai, name: カイ, hand_size: 4}\n", encoding="utf-8")
    else:
        raise ValueError(name)
    return target


def argv_of(case: dict[str, Any], tmp: Path) -> tuple[list[str], bytes | None]:
    """The command line of a case (and what it reads on standard input)."""
    via = case["via"]
    data = content(case)
    path: Path | None = None
    if "make" in case:
        path = make(case["make"], tmp)
        if "sql" in case:  # a damaged campaign: the SQL (foreign keys and checks off) breaks it
            _sqlite(path, "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON; "
                          "PRAGMA writable_schema = OFF;" + case["sql"])
    elif data is not None and not case.get("stdin") and via not in ("eval", "check", "prob"):
        path = tmp / case.get("name", "case.yaml")
        path.write_bytes(data)
    stdin = data if case.get("stdin") is True else None
    extra = [a.replace("{file}", str(path)).replace("{tmp}", str(tmp)).replace("{not_utf8}", NOT_UTF8)
             .replace("{deep_name}", ".".join(["a"] * 5000)).replace("{digits_4301}", "1" * 4301)
             .replace("{long_name}", "x" * 300) for a in case.get("args", [])]
    if via == "validate":
        return ["validate", str(path), *extra], stdin
    if via == "test":
        return ["test", str(path), *extra], stdin
    if via == "run":
        return ["run", case.get("rule", "procurement.rarity"), "--input",
                "-" if stdin is not None else str(path), *extra], stdin
    if via in ("eval", "check", "prob"):
        return [via, *extra, "--", data.decode("utf-8") if data is not None else ""], stdin
    if via == "campaign":
        return ["campaign", case.get("command", "show"), str(path), *extra], stdin
    return extra, stdin


def run_case(case: dict[str, Any], tmp: Path) -> Outcome:
    return run_argv(case, *argv_of(case, tmp), tmp)


def run_argv(case: dict[str, Any], argv: list[str], stdin: bytes | None, tmp: Path) -> Outcome:
    forbidden = ("/etc/passwd", "/etc/shadow", str(tmp / "secret"))
    (tmp / "secret").write_text("never read\n", encoding="utf-8")
    close = tuple(fd for fd, key in ((0, "stdin"), (2, "stderr")) if case.get(key) == "closed")
    return run_cli(argv, tmp, stdin=stdin if case.get("stdin") != "closed" else None, forbidden=forbidden,
                   stdout=case.get("stdout"), file_bytes=case.get("file_bytes"), close=close,
                   env=case.get("env"))


def campaign_of(case: dict[str, Any], tmp: Path) -> Path | None:
    """The campaign file a case works on (``campaign: {tmp}/x.db``, or the file of a campaign case)."""
    if "campaign" in case:
        return Path(case["campaign"].replace("{tmp}", str(tmp)).replace("{not_utf8}", NOT_UTF8))
    if case["via"] == "campaign" and "make" in case:
        return tmp / "campaign.db" if case["make"].startswith("campaign_") else tmp / case["make"]
    return None


def _uri(path: Path) -> str:
    from urllib.parse import quote

    return f"file:{quote(os.fsencode(path))}?mode=ro"


def snapshot(path: Path | None) -> list[str] | None:
    """Every row of a campaign file as SQL (``None`` if it is no SQLite file), after checking
    SQLite's ``integrity_check`` on it."""
    if path is None or not path.is_file():
        return None
    try:
        conn = sqlite3.connect(_uri(path), uri=True)
        try:
            integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
            rows = list(conn.iterdump())
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    assert integrity == "ok", integrity
    return rows


def card_problems(path: Path) -> tuple[list[str], list[str]]:
    """The card invariant of a campaign: (missing, extra) cards."""
    from interpreter.campaign.store import Store
    from interpreter.solvers.cards import invariant_problems

    with Store(str(path), sqlite3.connect(_uri(path), uri=True)) as store:
        state = store.load()
    return invariant_problems(state.cards, state.deck_spec())


def check_campaign(case: dict[str, Any], outcome: Outcome, before: list[str] | None,
                   path: Path | None) -> None:
    """After a campaign case: a refused command left the file exactly as it was; a command that
    ran (or was saved though its output was lost, MPR052) left it whole, its cards adding up."""
    after = snapshot(path)
    saved = outcome.exit == 0 or "MPR052" in outcome.stderr
    if before is None:
        if after is not None and saved:
            assert card_problems(path) == ([], [])
        return
    assert after is not None, "a campaign file was destroyed"
    if not saved:
        assert after == before, "a refused command changed the campaign"
        return
    if "MPR052" in outcome.stderr:
        seq = int(re.search(r"#(\d+) ", outcome.stderr).group(1))
        assert f"INSERT INTO \"journal\" VALUES({seq}," in "\n".join(after), "MPR052 but not saved"
    assert card_problems(path) == ([], [])


# -- the tests -----------------------------------------------------------------------------------

def test_the_corpus_is_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 60
    for case in CASES:
        assert case["via"] in VIA, case["id"]
        assert sum(k in case for k in ("file", "string", "build", "make")) <= 1, case["id"]
        assert case["expect_exit"] in (0, 1, 2, 3), case["id"]
        assert case["expect_exit"] == 0 or case.get("stderr") == "closed" \
            or CODE.fullmatch(case["expect_code"]), case["id"]  # no message to see with stderr closed
    files = {p.relative_to(HOSTILE).as_posix() for p in HOSTILE.rglob("*") if p.is_file()}
    assert files - {"cases.yaml"} <= {c["file"] for c in CASES if "file" in c}


def _param(case: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
    return pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_case(case: dict[str, Any], tmp_path: Path) -> None:
    argv, stdin = argv_of(case, tmp_path)
    path = campaign_of(case, tmp_path)
    before = snapshot(path)
    outcome = run_argv(case, argv, stdin, tmp_path)
    output = outcome.stderr + outcome.stdout
    assert "Traceback" not in output and "HOSTILE:" not in output, output[-2000:]
    assert outcome.exit >= 0, f"killed by signal {-outcome.exit} ({outcome.cpu:.1f} s CPU)"
    assert "MPR000" not in output, output[-2000:]
    codes = CODE.findall(outcome.stderr) + CODE.findall(outcome.stdout)
    expected = case.get("expect_code")
    if expected:
        assert codes and codes[0] == expected, (codes, output[-2000:])
    assert outcome.exit == case["expect_exit"], output[-2000:]
    for forbidden in case.get("never_created", []):
        assert not Path(forbidden.replace("{tmp}", str(tmp_path))).exists(), forbidden
    for kept in case.get("kept", []):  # a file the command must leave where it is
        assert Path(kept.replace("{tmp}", str(tmp_path))).exists(), kept
    if case.get("gone_temporaries"):
        assert not list(tmp_path.glob(".campaign.db.*.tmp*")), list(tmp_path.iterdir())
    if case.get("stdout_pure"):  # nothing but the command's own output (messages never go there):
        # with --format json a refusal is one JSON document, {"error": {...}}, and nothing else
        text = outcome.stdout
        if "--format" in case.get("args", []) and text.strip():
            import json

            assert set(json.loads(text)) == {"error"}, text[-2000:]
            text = ""
        assert not CODE.search(text), text[-2000:]
    check_campaign(case, outcome, before, path)
