"""The hostile-input corpus (tests/hostile/cases.yaml): every case runs the real ``mprules`` command
in its own subprocess under 512 MB of address space and 5 s of CPU, with an audit hook that ends
the process if it opens a socket, runs a program or opens a file outside the case's reach; each
must end with its expected code and exit status, never a traceback, a hang or a memory blow-up.

Run ``python3 tests/test_hostile.py`` for the table of every case's time and peak memory.
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

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
CASES: list[dict[str, Any]] = yaml.safe_load((HOSTILE / "cases.yaml").read_text(encoding="utf-8"))
MEMORY_BYTES = 512 * 1024 * 1024
CPU_SECONDS = 5
WALL_SECONDS = 15  # a hang that sleeps instead of computing; the CPU limit is the 5 s bound
CODE = re.compile(r"\bMPR\d{3}\b")
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


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    os.setsid()


def run_cli(argv: list[str], cwd: Path, *, stdin: bytes | None = None,
            forbidden: tuple[str, ...] = ("/etc/passwd", "/etc/shadow")) -> Outcome:
    """``mprules ARGV`` in a limited subprocess; its exit status, output, time and peak memory."""
    env = {**os.environ, "HOSTILE_ROOT": str(ROOT), "HOSTILE_FORBIDDEN": os.pathsep.join(forbidden),
           "MPRULES_LANG": "en", "PYTHONHASHSEED": "0"}
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    source = subprocess.PIPE if stdin is not None else subprocess.DEVNULL
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, "-c", DRIVER, *argv], cwd=cwd, env=env,
                               stdin=source, stdout=out, stderr=err, preexec_fn=_limits)
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
    out.seek(0)
    err.seek(0)
    return Outcome(process.returncode, out.read().decode("utf-8", "replace"),
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
        else:
            raise ValueError(name)
        return target
    target = tmp / name
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
        from interpreter.resources import bundled_ruleset

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
    elif name == "directory":
        target.mkdir()
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
    elif data is not None and not case.get("stdin") and via not in ("eval", "check", "prob"):
        path = tmp / case.get("name", "case.yaml")
        path.write_bytes(data)
    stdin = data if case.get("stdin") else None
    extra = [a.replace("{file}", str(path)).replace("{tmp}", str(tmp)) for a in case.get("args", [])]
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
    argv, stdin = argv_of(case, tmp)
    forbidden = ("/etc/passwd", "/etc/shadow", str(tmp / "secret"))
    (tmp / "secret").write_text("never read\n", encoding="utf-8")
    return run_cli(argv, tmp, stdin=stdin, forbidden=forbidden)


# -- the tests -----------------------------------------------------------------------------------

def test_the_corpus_is_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 60
    for case in CASES:
        assert case["via"] in VIA, case["id"]
        assert sum(k in case for k in ("file", "string", "build", "make")) <= 1, case["id"]
        assert case["expect_exit"] in (0, 1, 2, 3), case["id"]
        assert case["expect_exit"] == 0 or CODE.fullmatch(case["expect_code"]), case["id"]
    files = {p.relative_to(HOSTILE).as_posix() for p in HOSTILE.rglob("*") if p.is_file()}
    assert files - {"cases.yaml"} <= {c["file"] for c in CASES if "file" in c}


def _param(case: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
    return pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_case(case: dict[str, Any], tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
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
        assert not Path(forbidden).exists()


def main(only: list[str]) -> None:
    """Run every case (or those named) and print its time, CPU and peak memory, then the longest
    and the largest."""
    rows = []
    with tempfile.TemporaryDirectory() as base:
        for n, case in enumerate(CASES):
            if only and case["id"] not in only:
                continue
            tmp = Path(base) / str(n)
            tmp.mkdir()
            outcome = run_case(case, tmp)
            codes = CODE.findall(outcome.stderr) + CODE.findall(outcome.stdout)
            ok = outcome.exit == case["expect_exit"] and (
                not case.get("expect_code") or codes[:1] == [case["expect_code"]])
            rows.append((case["id"], outcome))
            print(f"{'ok ' if ok else 'BAD'} {case['id']:<40} exit {outcome.exit:>3} "
                  f"{(codes or ['-'])[0]:<7} {outcome.seconds:6.2f} s {outcome.cpu:6.2f} s CPU "
                  f"{outcome.peak_kb / 1024:7.1f} MB")
    slowest = max(rows, key=lambda r: r[1].seconds)
    largest = max(rows, key=lambda r: r[1].peak_kb)
    print(f"{len(rows)} cases; longest {slowest[0]} {slowest[1].seconds:.2f} s; "
          f"largest {largest[0]} {largest[1].peak_kb / 1024:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])


@pytest.mark.parametrize("harness, folders", [
    ("fuzz_expression", ["fuzz/corpus/expression"]),
    ("fuzz_yaml", ["fuzz/corpus/yaml", "tests/hostile/yaml", "tests/hostile/schema"]),
])
def test_fuzz_harnesses_replay_their_corpus(harness: str, folders: list[str]) -> None:
    """The atheris harnesses of fuzz/ run without atheris on their seeds and the hostile files."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(harness, ROOT / "fuzz" / f"{harness}.py")
    sys.path.insert(0, str(ROOT / "fuzz"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files = [f for folder in folders for f in sorted((ROOT / folder).iterdir()) if f.is_file()]
    assert len(files) >= 3
    for file in files:
        module.test_one_input(file.read_bytes())
