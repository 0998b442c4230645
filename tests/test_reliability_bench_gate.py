"""The regression gate: benchmarks run with one thread per pool, and CI runs a short gate."""

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
    assert "def benchgate(" in nox_text and '"--factor", "6"' in nox_text
    assert nox_text.count("env=ONE_THREAD") == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert "benchgate" in ci


# --------------------------------------------------------------------------- CPU score
def _compare_module():
    spec = importlib.util.spec_from_file_location("bench_compare",
                                                  ROOT / "tests" / "benchmarks" / "compare.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(seconds: dict[str, float], score: float | None, cal_s: float = 0.01) -> dict:
    cal = {"calibration_s": cal_s, **({"cpu_score": score} if score is not None else {})}
    return {"calibration": cal,
            "benchmarks": [{"fullname": n, "stats": {"median": t}} for n, t in seconds.items()]}


def _gate(tmp_path, runs, baseline_runs, factor=1.3):
    import json

    mod = _compare_module()
    base = tmp_path / "baseline.json"
    base.unlink(missing_ok=True)
    base.write_text(json.dumps(mod.updated_baseline(baseline_runs, base)))
    current, reference, how = mod.normalised(runs, json.loads(base.read_text()))
    return mod.compare(current, reference, factor)[1], how


def test_gate_normalises_by_the_cpu_score_recorded_with_the_baseline(tmp_path):
    base = [_run({"train": 2.0, "ida": 1.0}, score=200.0)]
    # a machine half as fast (half the score) takes twice the seconds: no slowdown
    assert _gate(tmp_path, [_run({"train": 4.0, "ida": 2.0}, score=100.0)], base) == \
        (True, "cpu_score")
    # ... and twice the seconds on a machine as fast as the baseline's is one
    assert _gate(tmp_path, [_run({"train": 4.0, "ida": 2.0}, score=200.0)], base)[0] is False
    # a machine twice as fast hides no 1.5x slowdown of one path behind its speed
    assert _gate(tmp_path, [_run({"train": 1.5, "ida": 0.5}, score=400.0)], base)[0] is False
    assert _gate(tmp_path, [_run({"train": 1.0, "ida": 0.5}, score=400.0)], base)[0] is True
    # within the factor: passes; the median of several runs steadies a noisy one
    assert _gate(tmp_path, [_run({"train": 2.5, "ida": 1.2}, score=200.0)], base)[0] is True
    noisy = [_run({"train": 2.0, "ida": 1.0}, 200.0), _run({"train": 9.0, "ida": 1.0}, 200.0),
             _run({"train": 2.2, "ida": 1.0}, 200.0)]
    assert _gate(tmp_path, noisy, base)[0] is True


def test_gate_falls_back_to_the_calibration_without_scores(tmp_path):
    import json

    mod = _compare_module()
    # a baseline made before scores were recorded: the calibration workload normalises
    path = tmp_path / "baseline.json"
    old = mod.updated_baseline([_run({"train": 2.0}, score=None, cal_s=0.01)], path)
    assert "seconds" not in old and "cpu_score" not in old["calibration"]
    path.write_text(json.dumps(old))
    current, reference, how = mod.normalised([_run({"train": 4.0}, 100.0, cal_s=0.02)], old)
    assert how == "calibration" and mod.compare(current, reference, 1.3)[1] is True
    # a run without a score against a scored baseline: the calibration too
    scored = mod.updated_baseline([_run({"train": 2.0}, 200.0)], tmp_path / "none.json")
    assert mod.normalised([_run({"train": 2.0}, None)], scored)[2] == "calibration"


def test_baseline_update_keeps_other_entries_at_the_new_score(tmp_path):
    import json

    mod = _compare_module()
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(mod.updated_baseline([_run({"a": 1.0, "b": 3.0}, 100.0)], path)))
    new = mod.updated_baseline([_run({"a": 0.5}, 200.0), _run({"a": 0.7}, 200.0),
                                _run({"a": 0.6}, 200.0)], path)
    assert new["calibration"]["cpu_score"] == 200.0
    assert new["seconds"]["a"] == 0.6
    # b was 3 s at score 100: 1.5 s at score 200, the same work
    assert abs(new["seconds"]["b"] - 1.5) < 1e-12


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
