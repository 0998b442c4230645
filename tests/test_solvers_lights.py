"""IDA* and the best-first presets on the real Lights Out puzzle against the exact GF(2) optimum."""

from __future__ import annotations

import numpy as np
import pytest

from core.registry import get_heuristic, get_puzzle, get_solver


@pytest.mark.parametrize("n, count", [(3, 20), (4, 20), (5, 10), (7, 5)])
def test_ida_lengths_equal_gf2_optimal(n, count):
    p = get_puzzle(f"lightsout{n}")
    h = get_heuristic("lights-on", p)
    states = p.random_states(count, np.random.default_rng(100 + n))
    optimal = p.optimal_lengths(states)
    ida = get_solver("ida")
    for s, opt in zip(states, optimal, strict=True):
        r = ida.solve(p, h, s)
        assert r.status == "solved" and r.length == opt and p.check_solution(s, r.actions)


@pytest.mark.parametrize("n", [3, 4])
def test_astar_lengths_equal_gf2_optimal_and_bwas_is_valid(n):
    p = get_puzzle(f"lightsout{n}")
    h = get_heuristic("lights-on", p)
    states = p.random_states(8, np.random.default_rng(n))
    optimal = p.optimal_lengths(states)
    astar, bwas = get_solver("astar"), get_solver("bwas", batch=200)
    for s, opt in zip(states, optimal, strict=True):
        assert astar.solve(p, h, s).length == opt
        r = bwas.solve(p, h, s)
        assert r.status == "solved" and r.length >= opt


@pytest.mark.shared
def test_ida_solves_all_500_deepcubea_lightsout7_test_states_optimally(deepcubea):
    from puzzles.lightsout import from_deepcubea_lights
    from suites.importers.deepcubea import load_test_set

    data = load_test_set(deepcubea / "lightsout7" / "test_data_0.pkl")
    states = from_deepcubea_lights(data.states)
    p = get_puzzle("lightsout7")
    h = get_heuristic("lights-on", p)
    ida = get_solver("ida")
    lengths = [ida.solve(p, h, s).length for s in states]
    assert lengths == list(p.optimal_lengths(states))
