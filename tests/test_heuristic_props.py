"""Each heuristic's declared ``admissible`` and ``consistent`` agree with its class and hold on
the states where they can be checked: admissible means ``h <= `` the true distance (exhaustive
8-puzzle and 3x3 Lights Out tables, the 2x2x2 cube's table on random states), consistent means
``|h(s) - h(t)| <= 1`` for every move ``s -> t`` (unit costs). Large PDBs are stood in for by
their declared small stand-ins, as in ``tests/test_registry_walk.py``."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.props import PROPS, HeuristicProps

#: heuristics checked on exhaustive or random states, by puzzle
CHECKED = {
    "puzzle8": ("zero", "manhattan", "linear-conflict", "pdb-full", "pdb-full-reflect", "pdb-44",
                "pdb-44-reflect"),
    "lightsout3": ("zero", "lights-on"),
    "cube2": ("zero", "pdb-cube2"),
}


def _puzzle8_states(puzzle):
    from puzzles import exhaustive as ex

    d = ex.puzzle8_distances()
    ok = np.flatnonzero(d >= 0)
    return ex.perm_unranks(ok, 9).astype(puzzle.dtype), d[ok].astype(np.int64)


def _lights_states(puzzle):
    cells = puzzle.cells
    states = ((np.arange(2 ** cells)[:, None] >> np.arange(cells)) & 1).astype(np.uint8)
    states = states[puzzle.solvable(states)]
    return states, np.asarray(puzzle.optimal_lengths(states), dtype=np.int64)


def _cube2_states(puzzle):
    states, _ = puzzle.scramble(3000, 30, np.random.default_rng(0))
    return states, np.asarray(puzzle.distance_table())[puzzle.index(states)].astype(np.int64)


STATES = {"puzzle8": _puzzle8_states, "lightsout3": _lights_states, "cube2": _cube2_states}


def test_every_entry_declares_typed_properties():
    for kind, table in (("puzzle", registry.PUZZLES), ("heuristic", registry.HEURISTICS),
                        ("solver", registry.SOLVERS)):
        for name, e in table.items():
            assert isinstance(e.props, PROPS[kind]), (kind, name)
    for name, e in registry.HEURISTICS.items():
        p = e.props
        assert not p.consistent or p.admissible, name  # consistent with h(goal) = 0
        assert not p.exact or (p.admissible and p.consistent), name
        assert not p.pdb or p.needs_pdb, name
        assert not p.ranks_moves or p.needs_model, name
        if p.default_solver:
            assert p.default_solver in registry.SOLVERS, name


@pytest.mark.parametrize("name", [n for n, e in registry.HEURISTICS.items()
                                  if not e.props.needs_model])
def test_declarations_agree_with_the_class(name):
    cls = registry.HEURISTICS[name].load()
    declared = registry.HEURISTICS[name].props
    assert cls.admissible == declared.admissible, name
    if name not in ("pdb-full", "pdb-full-reflect"):  # the exact table says so per instance
        assert cls.consistent == declared.consistent, name


@pytest.mark.parametrize("puzzle_name", list(CHECKED))
def test_admissible_and_consistent_hold_where_declared(puzzle_name):
    puzzle = registry.get_puzzle(puzzle_name)
    states, dist = STATES[puzzle_name](puzzle)
    children, valid = puzzle.expand(states)
    b, a, n = children.shape
    for name in CHECKED[puzzle_name]:
        declared: HeuristicProps = registry.heuristic_entry(name).props
        h = registry.get_heuristic(name, puzzle)
        assert (h.admissible, h.consistent) == (declared.admissible, declared.consistent), name
        hs = np.asarray(h(states), dtype=np.float64)
        if declared.admissible:
            assert (hs <= dist).all(), name
        if declared.exact:
            assert (hs == dist).all(), name
        if declared.consistent:
            hc = np.asarray(h(children.reshape(-1, n)), dtype=np.float64).reshape(b, a)
            assert (np.abs(hc - hs[:, None])[valid] <= 1).all(), name


def test_additive_tile_sums_are_not_declared_consistent_and_are_not():
    """A counterexample: the 8-puzzle's additive 4-4 sum drops by more than one on a move."""
    puzzle = registry.get_puzzle("puzzle8")
    states, _ = _puzzle8_states(puzzle)
    children, valid = puzzle.expand(states)
    h = registry.get_heuristic("pdb-44", puzzle)
    hs = np.asarray(h(states), dtype=np.int64)
    hc = np.asarray(h(children.reshape(-1, children.shape[2])), dtype=np.int64)
    assert (np.abs(hc.reshape(valid.shape) - hs[:, None])[valid] > 1).any()
    assert not registry.heuristic_entry("pdb-44").props.consistent
    assert not registry.heuristic_entry("pdb-44-reflect").props.consistent
