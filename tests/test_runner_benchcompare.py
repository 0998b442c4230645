"""The benchmark regression comparison: ratios to the calibration, fail on a large slowdown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))

import compare  # noqa: E402


def _run(path: Path, cal: float, medians: dict[str, float]) -> Path:
    path.write_text(json.dumps({
        "calibration": {"calibration_s": cal},
        "benchmarks": [{"fullname": k, "stats": {"median": v}} for k, v in medians.items()],
    }))
    return path


def test_ratios_survive_a_slower_machine_and_catch_a_regression(tmp_path, capsys):
    base = tmp_path / "baseline.json"
    first = _run(tmp_path / "a.json", 0.1, {"t::ida": 1.0, "t::pdb": 2.0})
    assert compare.main([str(first), "--baseline", str(base), "--update"]) == 0
    assert json.loads(base.read_text())["ratios"] == {"t::ida": 10.0, "t::pdb": 20.0}
    # a machine twice as slow: everything and the calibration double -> passes
    slow = _run(tmp_path / "b.json", 0.2, {"t::ida": 2.0, "t::pdb": 4.0, "t::new": 1.0})
    assert compare.main([str(slow), "--baseline", str(base)]) == 0
    assert "new; not in the baseline" in capsys.readouterr().out
    # IDA* three times slower on the same machine -> fails
    bad = _run(tmp_path / "c.json", 0.1, {"t::ida": 3.0, "t::pdb": 2.0})
    assert compare.main([str(bad), "--baseline", str(base)]) == 1
    assert "SLOWER" in capsys.readouterr().out
    assert compare.main([str(bad), "--baseline", str(base), "--factor", "4"]) == 0


def test_several_runs_compare_by_their_median(tmp_path):
    base = tmp_path / "baseline.json"
    runs = [_run(tmp_path / f"r{i}.json", 0.1, {"t::bwas": m}) for i, m in enumerate((1.0, 1.6, 1.2))]
    assert compare.main([*map(str, runs), "--baseline", str(base), "--update"]) == 0
    assert json.loads(base.read_text())["ratios"]["t::bwas"] == pytest.approx(12.0)  # median of 10, 16, 12
    # one noisy run of three at 3x does not fail; two of three do
    noisy = [_run(tmp_path / f"n{i}.json", 0.1, {"t::bwas": m}) for i, m in enumerate((3.0, 1.1, 1.3))]
    assert compare.main([*map(str, noisy), "--baseline", str(base)]) == 0
    slow = [_run(tmp_path / f"s{i}.json", 0.1, {"t::bwas": m}) for i, m in enumerate((3.0, 3.1, 1.3))]
    assert compare.main([*map(str, slow), "--baseline", str(base)]) == 1
    assert compare.main([str(tmp_path / "absent.json")]) == 2
