"""The three-axis coset heuristic (``pdb-coset``) and its IDA* kernel, on small projections of
its coordinates: admissible and consistent on the balls around the goal, and optimal lengths
equal to the Korf kernel's; with its options (the inverse position's lookups, a corner table in
the max) never above the breadth-first distance, the inverse's values equal to the plain
heuristic's on the inverse position, and the same optimal lengths."""

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


def test_node_limit_and_goal_start():
    puzzle = cube.Cube3("htm")
    spec = CosetCubePDB(puzzle, "set", "set", progress=False).ida_spec()
    states, _ = puzzle.scramble(1, 30, np.random.default_rng(11))
    out = ida.search(puzzle, spec, states[0], 5000, None)
    assert out["status"] == "node-limit" and out["actions"] is None
    assert 5000 < out["nodes_generated"] <= 5000 + puzzle.num_actions
    assert ida.CosetSearch(puzzle, spec, puzzle.goal()).is_goal()


# ----------------------------------------------------------------------------- options
OPTIONS = [("on", "none"), ("near", "corner-perm"), ("on", "corner-twist"), ("off", "corner-perm")]


def _inverse_of(puzzle, actions):
    return puzzle.from_moves([puzzle.inverse_action(a) for a in reversed(actions)])


@pytest.mark.parametrize("metric, radius", [("qtm", 4), ("htm", 3)])
@pytest.mark.parametrize("parts", PARTS)
@pytest.mark.parametrize("probe, corner", OPTIONS)
def test_options_never_above_the_breadth_first_distance(metric, radius, parts, probe, corner):
    puzzle = cube.Cube3(metric)
    h = CosetCubePDB(puzzle, *parts, progress=False, probe_inverse=probe, corner_pdb=corner)
    assert h.consistent == (probe == "off")
    states, dist = bfs_ball(puzzle, radius)
    values = h(states)
    assert (values <= dist).all()
    assert (values >= CosetCubePDB(puzzle, *parts, progress=False)(states)).all()
    # the kernel's root value (inverse read from its cubies) is the batch value
    spec = h.ida_spec()
    for i in range(0, len(states), max(1, len(states) // 40)):
        assert ida.CosetSearch(puzzle, spec, states[i]).h_root == values[i]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_inverse_values_are_the_inverse_cubes_values(metric):
    """The inverse probe equals the plain heuristic of the inverse position, made by the
    reversed and inverted move sequence; the kernel's inverse, kept by premultiplying each
    move's inverse, gives the same values along the way."""
    puzzle = cube.Cube3(metric)
    plain = CosetCubePDB(puzzle, "set", "full", progress=False)
    h = CosetCubePDB(puzzle, "set", "full", progress=False, probe_inverse="on")
    spec = h.ida_spec()
    args = dict(zip(ida.ARG_NAMES, ida._kernel_args(puzzle, spec), strict=True))
    imc, ime = args["imc"], args["ime"]
    value_args = tuple(args[n] for n in ("cpos", "cax", "epos", "eax", "rank8", "rank12", "cset",
                                         "emode", "ne", "classof", "symof", "econj", "table"))
    rng = np.random.default_rng(8)
    raised = 0
    for _ in range(12):
        actions = [int(a) for a in rng.integers(0, puzzle.num_actions, 16)]
        node = ida.inverse_cubies(puzzle, puzzle.goal())  # (1, 40): the node's inverse
        kids = np.zeros((1, puzzle.num_actions, ida._IW), dtype=np.int64)
        for n, a in enumerate(actions, start=1):
            ida._inv_child(node, kids, 0, a, imc, ime)
            node[0] = kids[0, a]
            state = puzzle.from_moves(actions[:n])
            inv = plain(_inverse_of(puzzle, actions[:n])[None, :])[0]
            kernel = max(ida._inv_value(kids, 0, a, k, *value_args) for k in range(3))
            assert kernel == inv
            assert h(state[None, :])[0] == max(plain(state[None, :])[0], inv)
            raised += int(inv > plain(state[None, :])[0])
    assert raised > 0  # the inverse adds information on some of these cubes


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("probe, corner", [("off", "none"), *OPTIONS])
def test_optimal_lengths_equal_the_korf_kernels(metric, probe, corner):
    """The coset kernel, with each option, finds the lengths of the Korf cube kernel."""
    puzzle = cube.Cube3(metric)
    spec = CosetCubePDB(puzzle, "full", "none", progress=False, probe_inverse=probe,
                        corner_pdb=corner).ida_spec()
    korf = KorfCubePDB(puzzle, progress=False, **KORF_SMALL).ida_spec()
    rng = np.random.default_rng(21 if probe == "off" else 23)
    for depth in range(1, 9 if probe == "off" else 8):
        states, _ = puzzle.scramble(2, depth, rng)
        for s in states:
            out = ida.search(puzzle, spec, s, None, None)
            ref = korf_ida.search(puzzle, korf, s, None, None)
            assert out["status"] == "solved" and ref["status"] == "solved"
            assert len(out["actions"]) == len(ref["actions"]) <= depth
            assert puzzle.check_solution(s, out["actions"])
            assert out["nodes_generated"] >= len(out["actions"])


def test_options_are_checked():
    from core.errors import InputError

    puzzle = cube.Cube3("htm")
    with pytest.raises(InputError, match="probe-inverse"):
        CosetCubePDB(puzzle, "set", "set", progress=False, probe_inverse="yes")
    with pytest.raises(InputError, match="corner-pdb"):
        CosetCubePDB(puzzle, "set", "set", progress=False, corner_pdb="edges")
    h = CosetCubePDB(puzzle, "set", "set", progress=False, probe_inverse="near",
                     corner_pdb="corner-perm")
    assert h.name == "pdb-coset[set|set]+inverse-near+corner-perm"
    with pytest.raises(InputError, match=r"states: expected shape \(B, 54\)"):
        h(np.zeros((2, 53), np.uint8))
    assert h(puzzle.goal()).tolist() == [0]
