"""The tests' PDB cache is their own, whatever ``$BENCH_CACHE`` the user set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.paths import cache_dir


def test_tests_build_into_a_cache_of_their_own(tmp_path_factory: pytest.TempPathFactory,
                                               request: pytest.FixtureRequest):
    cache = cache_dir().resolve()
    base = tmp_path_factory.getbasetemp().resolve()
    assert cache.is_relative_to(base) and cache.name.startswith("bench-cache")
    here = Path(__file__).resolve().parent / "conftest.py"
    # pytest's own record of the conftest modules (another folder's conftest may take the
    # name "conftest" in sys.modules)
    conftest = next(m for m in request.config.pluginmanager.get_plugins()
                    if getattr(m, "__file__", None) and Path(m.__file__).resolve() == here)
    if conftest.USER_CACHE is not None:
        assert cache != Path(conftest.USER_CACHE).resolve()
    assert os.environ["BENCH_CACHE"] == str(cache_dir())
