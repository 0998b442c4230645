"""Regression benchmarks: every figure is normalized by a calibration workload of the same run.

``nox -s bench`` runs ``pytest tests/benchmarks --benchmark-enable --benchmark-only
--benchmark-json .benchmarks/latest.json`` and then ``python tests/benchmarks/compare.py
.benchmarks/latest.json``, which fails when a benchmark's time divided by the calibration time
grew by more than the allowed factor over ``tests/benchmarks/baseline.json``.

The calibration (``calibrate()``) is a fixed pure-Python loop and a fixed numpy sort; it is
measured before the first benchmark and at the end of the session (the smaller of the two is kept, so a
machine that was busy for a moment does not shift every ratio) and written into the JSON, with
the machine's CPU score (``bench.provenance.cpu_score``, the larger of the two measurements).
Numba and torch run one thread each (``pin_threads``), and ``nox -s bench`` sets the BLAS and
OpenMP thread counts to 1, so the ratios do not swing with the load of the machine.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

_CAL: dict[str, float] = {}


def _python_loop() -> int:
    acc = 0
    for i in range(300_000):
        acc = (acc + i * i) % 1_000_003
    return acc


_SORT_INPUT = np.random.default_rng(0).random(1_000_000)


def _numpy_sort() -> float:
    return float(np.sort(_SORT_INPUT)[500_000])


def _best_of(fn: Any, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def calibrate() -> dict[str, float]:
    """Seconds of the two fixed workloads and their geometric mean (``calibration_s``), and the
    machine's CPU score (``bench.provenance.cpu_score``: millions of values one core sorts per
    second, the figure result rows carry), which ``compare.py`` normalises by."""
    from bench.provenance import cpu_score

    py = _best_of(_python_loop)
    npy = _best_of(_numpy_sort)
    return {"python_loop_s": py, "numpy_sort_s": npy, "calibration_s": float(np.sqrt(py * npy)),
            "cpu_score": cpu_score()}


def _skipping(config: pytest.Config) -> bool:
    """True when benchmarks are skipped (the default ``--benchmark-skip`` of plain test runs)."""
    if config.getoption("benchmark_only", default=False):
        return False
    return bool(config.getoption("benchmark_skip", default=False))


def pin_threads() -> dict[str, int]:
    """One Numba and one torch thread (and one BLAS thread where the environment decides it):
    on a loaded machine, thread pools oversubscribe the cores and time what else runs."""
    pinned: dict[str, int] = {}
    try:
        import numba

        numba.set_num_threads(1)
        pinned["numba"] = numba.get_num_threads()
    except (ImportError, ValueError):
        pass
    import sys

    if "torch" in sys.modules or _module_available("torch"):
        import torch

        torch.set_num_threads(1)
        pinned["torch"] = torch.get_num_threads()
    return pinned


def _module_available(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="session", autouse=True)
def calibration(request: pytest.FixtureRequest) -> dict[str, float]:
    """The calibration, measured before the first benchmark of the session (seconds), with the
    thread pools pinned to one thread each."""
    if not _CAL and not _skipping(request.config):
        pin_threads()
        _CAL.update(calibrate())
    return dict(_CAL)


def pytest_benchmark_update_json(config: Any, benchmarks: Any, output_json: dict[str, Any]) -> None:
    """Add the calibration (the smaller of the start and end measurements) to the JSON."""
    if not _CAL:
        return
    end = calibrate()
    # the less busy of the two measurements: the shorter seconds, the higher score
    output_json["calibration"] = {k: (max if k == "cpu_score" else min)(v, end[k])
                                  for k, v in _CAL.items()}
