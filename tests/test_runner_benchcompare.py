"""The benchmark regression gate (tests/benchmarks/compare.py) on synthetic runs: each figure is a
benchmark's seconds over its reference workload's seconds, timed in the same run."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))

import compare  # noqa: E402

#: benchmark -> (reference kind, benchmark seconds, reference seconds)
BASE = {"t::train": ("torch_train", 0.04, 0.06), "t::beam": ("torch_search", 0.02, 0.013),
        "t::bwas": ("torch_search", 0.15, 0.015), "t::ida": ("numba_search", 0.15, 0.025),
        "t::pdb": ("numba_bfs", 0.006, 0.007), "t::runner": ("python", 0.035, 0.01)}
EPYC = {"brand_raw": "AMD EPYC", "family": 25, "model": 17, "flags": ["avx2", "fma", "avx512f"]}


def _gate_factors() -> tuple[float, float]:
    text = (ROOT / "noxfile.py").read_text()
    same = re.search(r'GATE_FACTOR = "([0-9.]+)"', text)
    other = re.search(r'OTHER_CPU_FACTOR = "([0-9.]+)"', text)
    assert same and other
    return float(same.group(1)), float(other.group(1))


def _run(path: Path, figs: dict, cpu: dict = EPYC, scale: float = 1.0,
         noise: tuple[float, ...] = (1.0, 1.0, 1.0)) -> Path:
    """A pytest-benchmark JSON: each benchmark's rounds at its seconds x ``scale`` x ``noise``
    (the reference rounds at its seconds x ``scale``: a machine ``scale`` times slower)."""
    benchmarks = []
    for name, (kind, secs, ref) in figs.items():
        data = [secs * scale * n for n in noise]
        benchmarks.append({"fullname": name, "stats": {"median": sorted(data)[len(data) // 2],
                                                       "min": min(data)},
                           "extra_info": {"reference": kind, "seconds": data,
                                          "reference_s": [ref * scale] * len(noise)}})
    path.write_text(json.dumps({"machine_info": {"cpu": cpu}, "benchmarks": benchmarks}))
    return path


@pytest.fixture
def baseline(tmp_path):
    base = tmp_path / "baseline.json"
    runs = [_run(tmp_path / f"b{i}.json", BASE, noise=(n, 1.0, 1.0)) for i, n in
            enumerate((1.0, 1.05, 0.97))]
    assert compare.main([*map(str, runs), "--baseline", str(base), "--update"]) == 0
    return base


def test_update_writes_each_benchmarks_reference_and_median_figure(baseline):
    data = json.loads(baseline.read_text())
    assert data["format"] == compare.FORMAT and data["statistic"] == compare.DEFAULT_STATISTIC
    [entry] = data["machines"]
    assert entry["cpu"] == {"brand": "AMD EPYC", "model": "family 25 model 17",
                            "flags": ["avx2", "fma", "avx512f"]}
    for name, (kind, secs, ref) in BASE.items():
        assert entry["benchmarks"][name]["reference"] == kind
        assert entry["benchmarks"][name]["figure"] == pytest.approx(secs / ref)


def test_a_13x_slowdown_of_any_one_benchmark_fails(tmp_path, baseline, capsys):
    factor, _ = _gate_factors()
    assert factor < 1.3
    for name in BASE:
        slow = {**BASE, name: (BASE[name][0], BASE[name][1] * 1.3, BASE[name][2])}
        run = _run(tmp_path / "slow.json", slow)
        assert compare.main([str(run), "--baseline", str(baseline), "--factor", str(factor)]) == 1
        out = capsys.readouterr().out
        assert [line.split()[0] for line in out.splitlines() if "SLOWER" in line] == [name]


def test_noise_and_a_slower_machine_pass(tmp_path, baseline):
    factor, _ = _gate_factors()
    # a machine 2.5x slower: every benchmark and its reference take 2.5x the time
    run = _run(tmp_path / "slow_machine.json", BASE, scale=2.5)
    assert compare.main([str(run), "--baseline", str(baseline), "--factor", str(factor)]) == 0
    # rounds 8% slower than the baseline's, one of them 1.5x (the median ignores it)
    run = _run(tmp_path / "noisy.json", BASE, noise=(1.08, 1.5, 1.08))
    assert compare.main([str(run), "--baseline", str(baseline), "--factor", str(factor)]) == 0


def test_missing_and_new_benchmarks_are_reported_and_pass(tmp_path, baseline, capsys):
    fewer = {k: v for k, v in BASE.items() if k != "t::beam"}
    run = _run(tmp_path / "r.json", {**fewer, "t::new": ("python", 0.01, 0.01)})
    assert compare.main([str(run), "--baseline", str(baseline)]) == 0
    out = capsys.readouterr().out
    assert "t::beam" in out and "not run" in out and "new; not in the baseline" in out


def test_a_benchmark_with_another_reference_fails_until_the_baseline_is_refreshed(tmp_path, baseline, capsys):
    run = _run(tmp_path / "r.json", {**BASE, "t::ida": ("python", 0.15, 0.025)})
    assert compare.main([str(run), "--baseline", str(baseline)]) == 1
    assert "REFRESH" in capsys.readouterr().out


def test_runs_and_baselines_without_references_are_refused_in_one_line(tmp_path, baseline, capsys):
    old_run = tmp_path / "old.json"
    old_run.write_text(json.dumps({"calibration": {"calibration_s": 0.01}, "benchmarks": [
        {"fullname": "t::ida", "stats": {"median": 0.1}}]}))
    assert compare.main([str(old_run), "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "t::ida" in err and "reference" in err
    old_base = tmp_path / "old_baseline.json"
    old_base.write_text(json.dumps({"calibration": {"calibration_s": 0.01},
                                    "ratios": {"t::ida": 10.0}}))
    run = _run(tmp_path / "r.json", BASE)
    assert compare.main([str(run), "--baseline", str(old_base)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--update" in err
    assert compare.main([str(run), "--baseline", str(tmp_path / "none.json")]) == 2
    assert compare.main([str(tmp_path / "absent.json")]) == 2
    (tmp_path / "cut.json").write_text('{"benchmarks": [')  # a run cut off while writing
    assert compare.main([str(tmp_path / "cut.json"), "--baseline", str(baseline)]) == 2
    # --update over an old baseline replaces it with the new format
    assert compare.main([str(run), "--baseline", str(old_base), "--update"]) == 0
    assert set(json.loads(old_base.read_text())["machines"][0]["benchmarks"]) == set(BASE)


def test_update_keeps_entries_the_runs_lack(tmp_path, baseline):
    run = _run(tmp_path / "r.json", {"t::ida": ("numba_search", 0.3, 0.025)})
    assert compare.main([str(run), "--baseline", str(baseline), "--update"]) == 0
    data = json.loads(baseline.read_text())["machines"][0]["benchmarks"]
    assert data["t::ida"]["figure"] == pytest.approx(12.0)
    assert data["t::pdb"]["figure"] == pytest.approx(0.006 / 0.007)


def test_another_cpu_is_gated_at_the_other_cpu_factor(tmp_path, baseline, capsys):
    factor, other = _gate_factors()
    assert factor <= other
    # the next generation under the same name and vector units is another CPU too
    zen5 = {**EPYC, "family": 26, "model": 2}
    run = _run(tmp_path / "z.json", {**BASE, "t::ida": ("numba_search", 0.15 * factor * 1.01, 0.025)},
               cpu=zen5)
    assert compare.main([str(run), "--baseline", str(baseline), "--factor", str(factor),
                         "--other-cpu-factor", str(other)]) == (0 if other > factor * 1.01 else 1)
    assert "another CPU" in capsys.readouterr().out
    intel = {"brand_raw": "Intel Xeon", "flags": ["avx2", "fma"]}
    between = 0.5 * (factor + other) if other > factor else factor * 0.99
    run = _run(tmp_path / "r.json", {**BASE, "t::ida": ("numba_search", 0.15 * between, 0.025)},
               cpu=intel)
    args = [str(run), "--baseline", str(baseline), "--factor", str(factor),
            "--other-cpu-factor", str(other)]
    assert compare.main(args) == 0
    assert "another CPU" in capsys.readouterr().out
    run = _run(tmp_path / "r2.json", {**BASE, "t::ida": ("numba_search", 0.15 * other * 1.1, 0.025)},
               cpu=intel)
    assert compare.main([str(run), *args[1:]]) == 1


def test_each_cpu_gets_its_entry_at_the_strict_factor_and_follows_changes_made_on_another(
        tmp_path, baseline, capsys):
    factor, other = _gate_factors()
    intel = {"brand_raw": "Intel Xeon", "flags": ["avx2", "fma"]}
    # the Intel machine runs the IDA* benchmark at half the reference machine's figure
    runs = [_run(tmp_path / f"i{i}.json", {**BASE, "t::ida": ("numba_search", 0.075, 0.025)},
                 cpu=intel) for i in range(3)]
    assert compare.main([*map(str, runs), "--baseline", str(baseline), "--update"]) == 0
    data = json.loads(baseline.read_text())
    assert [m["cpu"]["brand"] for m in data["machines"]] == ["AMD EPYC", "Intel Xeon"]
    args = ["--baseline", str(baseline), "--factor", str(factor), "--other-cpu-factor", str(other)]
    slow = _run(tmp_path / "s.json", {**BASE, "t::ida": ("numba_search", 0.075 * 1.3, 0.025)},
                cpu=intel)
    assert compare.main([str(slow), *args]) == 1  # its own entry: the strict factor
    assert "a CPU of the baseline" in capsys.readouterr().out
    # an intended 1.5x slowdown of BWAS, recorded on the reference machine, moves Intel's entry
    slower = _run(tmp_path / "a.json", {**BASE, "t::bwas": ("torch_search", 0.225, 0.015)})
    assert compare.main([str(slower), "--baseline", str(baseline), "--update"]) == 0
    intel_bwas = json.loads(baseline.read_text())["machines"][1]["benchmarks"]["t::bwas"]
    assert intel_bwas["figure"] == pytest.approx(15.0)
    run = _run(tmp_path / "r.json", {**BASE, "t::ida": ("numba_search", 0.075, 0.025),
                                     "t::bwas": ("torch_search", 0.225, 0.015)}, cpu=intel)
    assert compare.main([str(run), *args]) == 0


def test_the_committed_baseline_gates_every_path():
    data = compare.load_baseline(compare.BASELINE)
    entry = data["machines"][0]
    kinds = {name.split("::")[-1]: b["reference"] for name, b in entry["benchmarks"].items()}
    assert kinds == {"test_training_step": "torch_train",
                     "test_beam_with_network_cube2": "torch_search",
                     "test_bwas_with_network_cube2": "torch_search",
                     "test_ida_korf_three_instances": "numba_search",
                     "test_pdb_build_cube_4_edges": "numba_bfs",
                     "test_runner_rows_inline": "python"}
    assert all(b["figure"] > 0 for m in data["machines"] for b in m["benchmarks"].values())


def test_the_gates_two_runs_pass_a_busy_moment_in_one_and_fail_a_slowdown_in_both(tmp_path, baseline):
    factor, _ = _gate_factors()
    args = ["--baseline", str(baseline), "--factor", str(factor), "--best"]
    busy = _run(tmp_path / "busy.json", {**BASE, "t::ida": ("numba_search", 0.15 * 1.4, 0.025)})
    calm = _run(tmp_path / "calm.json", BASE, noise=(1.05, 1.05, 1.05))
    assert compare.main([str(busy), str(calm), *args]) == 0
    assert compare.main([str(busy), str(busy), *args]) == 1
    slow = {**BASE, "t::runner": ("python", 0.035 * 1.3, 0.01)}
    assert compare.main([str(_run(tmp_path / "s1.json", slow)),
                         str(_run(tmp_path / "s2.json", slow, noise=(0.97, 0.97, 0.97))),
                         *args]) == 1
