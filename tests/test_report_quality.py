"""Heuristic quality statistics against a naive computation, and a small end-to-end run."""

from __future__ import annotations

import numpy as np
import pytest

from bench import quality


@pytest.mark.nojit
def test_quality_stats_match_naive_loops():
    rng = np.random.default_rng(3)
    d = rng.integers(0, 20, 500).astype(float)
    h = d + rng.integers(-3, 3, 500)
    got = quality.quality_stats(h, d)
    over = [hv - dv for hv, dv in zip(h, d, strict=True) if hv > dv]
    assert got["states"] == 500
    assert got["over_pct"] == pytest.approx(100 * len(over) / 500)
    assert got["never_over_pct"] == pytest.approx(100 - 100 * len(over) / 500)
    assert got["within_1_pct"] == pytest.approx(100 * sum(hv - dv <= 1 for hv, dv in zip(h, d, strict=True)) / 500)
    assert got["mean_over"] == pytest.approx(sum(over) / len(over))
    assert got["max_over"] == max(over)
    assert got["mean_error"] == pytest.approx(sum(h - d) / 500)


def test_lights_on_is_admissible_on_known_lightsout_states():
    table, per_state = quality.evaluate("lightsout7", ["lights-on"])
    row = table.iloc[0]
    assert row["evaluated_on"] == "instances with known optimal lengths"
    assert row["states"] >= 60 and row["over_pct"] == 0.0 and row["never_over_pct"] == 100.0
    assert (per_state["h"] <= per_state["distance"]).all()


def test_exact_tables_cover_every_state():
    from core.registry import get_puzzle

    states, dist = quality.exact_distances(get_puzzle("puzzle8"))
    assert len(states) == 181_440 and dist.max() == 31 and (dist == 0).sum() == 1
    p = get_puzzle("puzzle8")
    assert p.is_goal(states[dist == 0])[0]


def test_quality_evaluates_each_model_given(tmp_path):
    import shutil
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[1] / "heuristics" / "models" / "puzzle8"
    copy = tmp_path / "seed-copy"
    shutil.copytree(shipped, copy)
    table, per_state = quality.evaluate("puzzle8", ["manhattan", "davi"], sample=3000,
                                        models=["puzzle8", str(copy)])
    assert list(table["heuristic"]) == ["manhattan", "davi[puzzle8]", "davi[seed-copy]"]
    by = table.set_index("heuristic")
    # the same weights by name and by folder: identical statistics
    for col in ("mean_error", "mean_abs_error", "never_over_pct"):
        assert by.loc["davi[puzzle8]", col] == pytest.approx(by.loc["davi[seed-copy]", col])
    assert by.loc["manhattan", "over_pct"] == 0.0  # admissible


def test_quality_model_needs_a_learned_heuristic():
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "bench", "quality", "puzzle8", "manhattan",
                          "--model", "puzzle8", "--sample", "10"], capture_output=True, text=True)
    assert res.returncode == 2
    assert "--model" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
