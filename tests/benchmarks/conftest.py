"""Regression benchmarks: one thread per pool, and a calibration recorded with every JSON.

``nox -s benchgate`` (and ``nox -s bench``) run ``test_bench_suite.py`` with pytest-benchmark;
each benchmark there times a reference workload of its own kind beside its rounds
(``reference_workloads.py``), and ``compare.py`` gates the ratio of the two (``NOISE.md``).

The calibration (``calibrate()``: a fixed pure-Python loop, a fixed numpy sort, and the machine's
CPU score, ``bench.provenance.cpu_score``) is measured before the first benchmark and at the end
of the session (the less busy of the two is kept) and written into the JSON: it tells a fast
machine from a slow or busy one when runs are read side by side; the gate does not use it.
Numba and torch run one thread each (``pin_threads``), and the nox sessions set the BLAS and
OpenMP thread counts to 1, so timings do not swing with the load of the machine.
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
