"""The three-axis coset heuristic (``pdb-coset``) and its IDA* kernel, on small projections of
its coordinates: admissible and consistent on the balls around the goal, and optimal lengths
equal to the Korf kernel's."""

from __future__ import annotations

import numpy as np
import pytest

cube = pytest.importorskip("puzzles.cube")

from cube_helpers import bfs_ball  # noqa: E402

from heuristics.pdb_coset import CosetCubePDB  # noqa: E402
from heuristics.pdb_cube import KorfCubePDB  # noqa: E402
from solvers import _ida_cube as korf_ida  # noqa: E402
from solvers import _ida_cube_coset as ida  # noqa: E402

KORF_SMALL = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}
PARTS = [("set", "set"), ("full", "none"), ("set", "full")]


@pytest.mark.parametrize("metric, radius", [("qtm", 4), ("htm", 3)])
@pytest.mark.parametrize("parts", PARTS)
def test_never_above_the_breadth_first_distance_and_consistent(metric, radius, parts):
    puzzle = cube.Cube3(metric)
    h = CosetCubePDB(puzzle, *parts, progress=False)
    states, dist = bfs_ball(puzzle, radius)
    values = h(states)
    assert (values <= dist).all()
    assert values.max() >= 2  # the table informs
    children, _ = puzzle.expand(states)
    child_values = h(children.reshape(-1, states.shape[1])).reshape(states.shape[0], -1)
    assert (np.abs(child_values - values[:, None]) <= 1).all()
    # the kernel's root value is the batch value
    spec = h.ida_spec()
    for i in range(0, len(states), max(1, len(states) // 40)):
        assert ida.CosetSearch(puzzle, spec, states[i]).h_root == values[i]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_optimal_lengths_equal_the_korf_kernels(metric):
    puzzle = cube.Cube3(metric)
    spec = CosetCubePDB(puzzle, "full", "none", progress=False).ida_spec()
    korf = KorfCubePDB(puzzle, progress=False, **KORF_SMALL).ida_spec()
    rng = np.random.default_rng(21)
    for depth in range(1, 9):
        states, _ = puzzle.scramble(2, depth, rng)
        for s in states:
            out = ida.search(puzzle, spec, s, None, None)
            ref = korf_ida.search(puzzle, korf, s, None, None)
            assert out["status"] == "solved" and ref["status"] == "solved"
            assert len(out["actions"]) == len(ref["actions"]) <= depth
            assert puzzle.check_solution(s, out["actions"])
            assert out["nodes_generated"] >= len(out["actions"])


def test_node_limit_and_goal_start():
    puzzle = cube.Cube3("htm")
    spec = CosetCubePDB(puzzle, "set", "set", progress=False).ida_spec()
    states, _ = puzzle.scramble(1, 30, np.random.default_rng(11))
    out = ida.search(puzzle, spec, states[0], 5000, None)
    assert out["status"] == "node-limit" and out["actions"] is None
    assert 5000 < out["nodes_generated"] <= 5000 + puzzle.num_actions
    assert ida.CosetSearch(puzzle, spec, puzzle.goal()).is_goal()
