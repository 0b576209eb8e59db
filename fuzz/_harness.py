"""What both harnesses share: run under atheris when it is installed (``pip install atheris``),
otherwise replay the files given on the command line once each (a regression run)."""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import atheris
except ImportError:  # replay mode
    atheris = None


def instrumented():
    """``atheris.instrument_imports()`` when fuzzing, a no-op context otherwise."""
    from contextlib import nullcontext

    return atheris.instrument_imports() if atheris else nullcontext()


def run(test_one_input: Callable[[bytes], None]) -> None:
    """Fuzz with atheris (its options: ``-max_total_time=60``, corpus folders...), or replay."""
    if atheris is not None:
        atheris.Setup(sys.argv, test_one_input)
        atheris.Fuzz()
        return
    paths = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    files = [f for p in paths for f in (sorted(p.rglob("*")) if p.is_dir() else [p]) if f.is_file()]
    for file in files:
        test_one_input(file.read_bytes())
    print(f"atheris is not installed (pip install atheris): replayed {len(files)} files, no crash")
