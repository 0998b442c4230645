"""Shared fixtures: the ../shared data location and a temporary PDB cache."""

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


@pytest.fixture(scope="session", autouse=True)
def _bench_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests build PDBs into a cache of their own unless BENCH_CACHE is set."""
    if "BENCH_CACHE" not in os.environ:
        os.environ["BENCH_CACHE"] = str(tmp_path_factory.mktemp("bench-cache"))
