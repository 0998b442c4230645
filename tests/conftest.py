"""Shared fixtures: the ../shared data location and a PDB cache of the tests' own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.paths import shared_dir


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder; tests that need it skip cleanly when it is absent."""
    path = shared_dir()
    if not path.is_dir():
        pytest.skip(f"shared data not found at {path} (set BENCH_SHARED)")
    return path


@pytest.fixture(scope="session")
def deepcubea(shared: Path) -> Path:
    path = shared / "data" / "deepcubea"
    if not path.is_dir():
        pytest.skip("DeepCubeA test sets not present")
    return path


#: the user's $BENCH_CACHE when the tests started (None: unset); tests never write there
USER_CACHE = os.environ.get("BENCH_CACHE")


@pytest.fixture(scope="session", autouse=True)
def _bench_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests build their small PDBs into a cache of their own, always: never into the user's
    ``$BENCH_CACHE`` (which would gain about 140 MB of test tables) nor the default cache."""
    os.environ["BENCH_CACHE"] = str(tmp_path_factory.mktemp("bench-cache"))


@pytest.fixture(autouse=True)
def _benchmark_cache(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmarks (``tests/benchmarks``) measure full-size tables: they read, and build once,
    the user's cache (``$BENCH_CACHE`` as it was, else the default), as a user's runs do."""
    if "benchmarks" not in Path(str(request.node.path)).parts:
        return
    if USER_CACHE is None:
        monkeypatch.delenv("BENCH_CACHE", raising=False)
    else:
        monkeypatch.setenv("BENCH_CACHE", USER_CACHE)
