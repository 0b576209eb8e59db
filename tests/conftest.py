"""Shared set-up of the test suite: the tests are grouped by the layer they test (``language/``,
``documents/``, ``ruleset/``, ``kinds/``, ``checks/``, ``reports/``, ``campaign/``, ``cli/``, plus
``reliability/`` for hostile input, crashes and limits across layers, and ``project/`` for the
rules of the code itself); the support modules beside this file (``campaign_support``,
``ruleset_support``, ``rebuild_support``, ``lsp_client``) are importable from every folder; and
every test (and every mprules process it starts) uses a ruleset cache of its own session, never
the user's."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(autouse=True, scope="session")
def _private_ruleset_cache():
    with tempfile.TemporaryDirectory(prefix="mprules-cache-") as directory:
        previous = os.environ.get("MPRULES_CACHE_DIR")
        os.environ["MPRULES_CACHE_DIR"] = directory
        yield
        if previous is None:
            os.environ.pop("MPRULES_CACHE_DIR", None)
        else:
            os.environ["MPRULES_CACHE_DIR"] = previous
