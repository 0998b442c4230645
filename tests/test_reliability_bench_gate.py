"""The regression gate: benchmarks run with one thread per pool, CI runs a short gate, and the
benchmark JSON records the CPU score (the comparison itself: test_runner_benchcompare.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_benchmarks_pin_numba_and_torch_to_one_thread():
    import numba
    import torch

    spec = importlib.util.spec_from_file_location("bench_conftest",
                                                  ROOT / "tests" / "benchmarks" / "conftest.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    before = (numba.get_num_threads(), torch.get_num_threads())
    try:
        pinned = mod.pin_threads()
        assert pinned == {"numba": 1, "torch": 1}
        assert numba.get_num_threads() == 1 and torch.get_num_threads() == 1
    finally:
        numba.set_num_threads(before[0])
        torch.set_num_threads(before[1])


def test_ci_runs_the_short_gate_with_one_thread_per_pool():
    nox_text = (ROOT / "noxfile.py").read_text()
    assert "def benchgate(" in nox_text and '"--factor", GATE_FACTOR' in nox_text
    assert '"--other-cpu-factor", OTHER_CPU_FACTOR' in nox_text
    assert nox_text.count("env=ONE_THREAD") == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert "benchgate" in ci


# --------------------------------------------------------------------------- CPU score
def test_the_benchmark_json_records_the_cpu_score():
    spec = importlib.util.spec_from_file_location("bench_conftest2",
                                                  ROOT / "tests" / "benchmarks" / "conftest.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod._CAL.update({"calibration_s": 0.02, "python_loop_s": 0.03, "numpy_sort_s": 0.01,
                     "cpu_score": 1e-3})
    out: dict = {}
    mod.pytest_benchmark_update_json(None, [], out)
    cal = out["calibration"]
    assert cal["cpu_score"] > 1e-3  # the larger (the less busy) of the two measurements
    assert cal["calibration_s"] <= 0.02
