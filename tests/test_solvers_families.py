"""IDA* and A* through the solver interface on the tile and cube families, against exact distances."""

from __future__ import annotations

import numpy as np
import pytest

from core.registry import get_heuristic, get_puzzle, get_solver


@pytest.mark.parametrize("name", ["cube2", "cube2-htm"])
def test_ida_and_astar_on_random_2x2x2_cubes_are_optimal(name):
    p = get_puzzle(name)
    h = get_heuristic("pdb-cube2", p)
    states = p.random_states(12, np.random.default_rng(22))
    exact = np.asarray(p.distance_table())[p.index(states)]
    ida, astar = get_solver("ida"), get_solver("astar")
    for s, d in zip(states, exact, strict=True):
        r = ida.solve(p, h, s)
        assert r.status == "solved" and r.length == d and r.h_start == d
        assert r.solver == "ida" and r.time_s >= 0 and r.load_s >= 0
        r = astar.solve(p, h, s)
        assert r.status == "solved" and r.length == d


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
def test_ida_on_the_8_puzzle_equals_exhaustive_distances(heuristic):
    from puzzles.exhaustive import perm_ranks, puzzle8_distances

    p = get_puzzle("puzzle8")
    h = get_heuristic(heuristic, p)
    states = p.random_states(40, np.random.default_rng(8))
    exact = puzzle8_distances()[perm_ranks(states)]
    ida = get_solver("ida")
    for s, d in zip(states, exact, strict=True):
        r = ida.solve(p, h, s)
        assert r.status == "solved" and r.length == d
        assert r.nodes_generated >= r.nodes_expanded and r.iterations >= 1


def test_astar_with_manhattan_on_the_8_puzzle_is_optimal():
    from puzzles.exhaustive import perm_ranks, puzzle8_distances

    p = get_puzzle("puzzle8")
    h = get_heuristic("manhattan", p)
    states = p.random_states(25, np.random.default_rng(9))
    exact = puzzle8_distances()[perm_ranks(states)]
    astar = get_solver("astar")
    for s, d in zip(states, exact, strict=True):
        assert astar.solve(p, h, s).length == d


def test_ida_limits_on_the_15_puzzle():
    from core.limits import Limits

    p = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic("manhattan", p)
    # Korf's instance 1 (55 moves): far beyond these limits
    s = p.parse("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
    ida = get_solver("ida")
    r = ida.solve(p, h, s, Limits(nodes=10_000))
    assert r.status == "node-limit" and r.actions is None and r.nodes_generated >= 10_000
    r = ida.solve(p, h, s, Limits(time_s=0.2))
    assert r.status == "timeout" and r.time_s < 1.5
