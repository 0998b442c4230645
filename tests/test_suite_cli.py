"""The suite commands end to end: list, show, run (smoke), resume, report, import; exit status 2."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bench.runner import ROWS, read_rows

ROOT = Path(__file__).resolve().parent.parent


def bench(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_suite_list_and_show():
    res = bench("suite", "list")
    assert res.returncode == 0, res.stderr
    for name in ("cube3", "cube2", "puzzle15", "puzzle24", "lightsout7", "felner2004"):
        assert name in res.stdout
    res = bench("suite", "show", "puzzle15")
    assert res.returncode == 0, res.stderr
    assert "korf100" in res.stdout and "goal blank-first" in res.stdout and "Korf (1985)" in res.stdout


@pytest.mark.parametrize("args,match", [
    (("run", "suite", "cube33"), "unknown suite 'cube33'"),
    (("run", "suite", "cube2", "--profile", "slow"), "--profile: suite cube2 has no profile 'slow'"),
    (("run", "suite", "lightsout7", "--config", "gf3"), "--config: suite lightsout7 has no configuration 'gf3'"),
    (("report", "/nonexistent/run"), "RUN_DIR: /nonexistent/run is not a folder"),
    (("suite", "import-deepcubea", "/nonexistent.pkl"), "PATH: /nonexistent.pkl does not exist"),
])
def test_bad_input_is_one_line_exit_2(args, match):
    res = bench(*args)
    assert res.returncode == 2, res.stderr
    assert match in res.stderr and "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0


def test_run_report_and_resume_on_lightsout(tmp_path):
    out = tmp_path / "run"
    res = bench("run", "suite", "lightsout7", "--quick", "--limit", "3", "--config", "gf2",
                "--jobs", "1", "--out", str(out), "-q")
    assert res.returncode == 0, res.stderr[-3000:]
    rows = read_rows(out / ROWS)
    assert len(rows) == 3 and all(r["status"] == "solved" for r in rows)
    assert all(r["length"] == r["optimal"] for r in rows)
    assert "gf2" in res.stdout and "100.0" in res.stdout
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 3 and {"git_rev", "cpu", "optimal", "nodes_generated"} <= set(df.columns)
    assert (out / "summary.md").read_text().startswith("# lightsout7 (quick)")
    assert (out / "nodes-vs-length.png").stat().st_size > 0
    again = bench("run", "suite", "lightsout7", "--quick", "--limit", "3", "--config", "gf2",
                  "--out", str(out), "--resume", "-q")
    assert again.returncode == 0 and "resumed: 3 rows were already done" in again.stderr
    assert len(read_rows(out / ROWS)) == 3
    rep = bench("report", str(out))
    assert rep.returncode == 0 and "gf2" in rep.stdout
    clash = bench("run", "suite", "lightsout7", "--quick", "--config", "gf2", "--out", str(out))
    assert clash.returncode == 2 and "--resume" in clash.stderr


def test_report_of_a_training_run(tmp_path):
    # the columns of learning.monitoring's LOG_COLUMNS and DEPTH_COLUMNS
    pd.DataFrame({"iteration": range(5), "loss": [1.0, 0.5, 0.3, 0.2, 0.1], "lr": [1e-3] * 5,
                  "target_updates": [0, 0, 1, 1, 2], "states_per_s": [1e4] * 5,
                  "seconds": [1, 2, 3, 4, 5]}).to_csv(tmp_path / "log.csv", index=False)
    pd.DataFrame({"iteration": [4] * 3, "depth": [1, 2, 3], "mean_pred": [1.0, 1.9, 2.7],
                  "greedy_solved": [1.0, 0.9, 0.5]}).to_csv(tmp_path / "depth_log.csv", index=False)
    res = bench("report", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "training.png").stat().st_size > 0 and "loss=0.1" in res.stdout


def test_import_deepcubea(deepcubea, tmp_path):
    dest = tmp_path / "lo.txt"
    res = bench("suite", "import-deepcubea", str(deepcubea / "lightsout7"), "--out", str(dest))
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in dest.read_text().splitlines() if not ln.startswith("#")]
    assert len(lines) == 500
    pub = dest.with_suffix(".lengths").read_text().splitlines()
    assert pub[0].split()[:2] == ["0", "23"]


def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.mark.skipif(not _have("heuristics.pdb_cube", "heuristics.value_net"),
                    reason="cube PDB or learned heuristic not available")
def test_cube2_quick_smoke(tmp_path):
    out = tmp_path / "cube2"
    res = bench("run", "suite", "cube2", "--quick", "--limit", "3", "--out", str(out), "-q",
                timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    rows = read_rows(out / ROWS)
    assert len(rows) == 6
    ida = [r for r in rows if r["config"] == "pdb-cube2-ida"]
    assert all(r["status"] == "solved" and r["length"] == r["optimal"] for r in ida)
    assert json.loads((out / "run.json").read_text())["profile"] == "quick"


@pytest.mark.skipif(not _have("heuristics.manhattan"), reason="manhattan heuristic not available")
def test_puzzle8_quick_smoke(tmp_path):
    out = tmp_path / "p8"
    res = bench("run", "suite", "puzzle8", "--quick", "--out", str(out), "-q")
    assert res.returncode == 0, res.stderr[-3000:]
    rows = read_rows(out / ROWS)
    assert len(rows) == 8 and all(r["status"] == "solved" for r in rows)
    assert all(r["length"] == r["optimal"] for r in rows)  # both configurations are optimal
