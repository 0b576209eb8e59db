"""Shared set-up of the test suite: every test (and every mprules process it starts) uses a
ruleset cache of its own session, never the user's."""
from __future__ import annotations

import os
import tempfile

import pytest


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
