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
    from bench.registry import get_puzzle

    states, dist = quality.exact_distances(get_puzzle("puzzle8"))
    assert len(states) == 181_440 and dist.max() == 31 and (dist == 0).sum() == 1
    p = get_puzzle("puzzle8")
    assert p.is_goal(states[dist == 0])[0]
