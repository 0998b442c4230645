"""The cube IDA* kernel: optimal lengths against exhaustive distances, limits, move pruning."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from puzzles.permutations import parity as perm_parity

cube = pytest.importorskip("puzzles.cube")

from cube_helpers import bfs_ball, exact_distance  # noqa: E402

from heuristics.pdb_cube import Cube2PDB, KorfCubePDB  # noqa: E402
from solvers import _ida_cube as ida  # noqa: E402

SMALL = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube2_lengths_equal_exhaustive_distances(metric):
    puzzle = cube.Cube2(metric)
    spec = Cube2PDB(puzzle, progress=False).ida_spec()
    rng = np.random.default_rng(7)
    states = puzzle.random_states(40, rng)
    exact = np.asarray(puzzle.distance_table())[puzzle.index(states)]
    for s, d in zip(states, exact, strict=True):
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and len(out["actions"]) == d
        assert puzzle.check_solution(s, out["actions"])
        assert out["iterations"] == 1  # the exact table needs a single bound


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube2_with_a_weak_table_is_still_optimal(metric):
    from pdb_builders import korf_cube as kc

    puzzle = cube.Cube2(metric)
    h = Cube2PDB(puzzle, progress=False)
    full = h.ida_spec()
    table, _ = kc.build(metric, "cube2-full")
    weak_table = np.zeros_like(h.tables[0])  # h = 0 everywhere: plain iterative deepening
    spec = replace(full, tables=full.tables._replace(ctab=weak_table))
    rng = np.random.default_rng(8)
    states, _ = puzzle.scramble(6, 6, rng)
    exact = table[kc.pattern_index(kc.parse_pattern("cube2-full"),
                                   (*puzzle.to_cubies(states), np.zeros((6, 12)), np.zeros((6, 12))))]
    for s, d in zip(states, exact, strict=True):
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and len(out["actions"]) == d
        # bounds 0, 1, ..., d from h = 0; quarter turns keep the parity: d, d - 2, ...
        assert out["iterations"] == (d + 1 if metric == "htm" else d // 2 + 1)
        assert puzzle.check_solution(s, out["actions"])


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube3_lengths_equal_breadth_first_distances(metric):
    puzzle = cube.Cube3(metric)
    h = KorfCubePDB(puzzle, progress=False, **SMALL)
    spec = h.ida_spec()
    states, dist = bfs_ball(puzzle, 4)
    rng = np.random.default_rng(9)
    for i in rng.choice(len(states), 60, replace=False):
        out = ida.search(puzzle, spec, states[i], None, None)
        assert out["status"] == "solved" and len(out["actions"]) == dist[i]
        assert puzzle.check_solution(states[i], out["actions"])
        assert out["nodes_generated"] >= len(out["actions"]) and out["nodes_expanded"] >= 1


@pytest.mark.parametrize("metric, depth", [("qtm", 7), ("htm", 6)])
def test_cube3_lengths_within_7_quarter_or_6_half_turns_equal_exact_distances(metric, depth):
    """Random walks of 7 quarter / 6 half turns; exact distances by meeting in the middle."""
    puzzle = cube.Cube3(metric)
    spec = KorfCubePDB(puzzle, progress=False, **SMALL).ida_spec()
    ball_radius = 4 if metric == "qtm" else 3
    ball_states, ball_dist = bfs_ball(puzzle, ball_radius)
    goal_ball = {s.tobytes(): int(d) for s, d in zip(ball_states, ball_dist, strict=True)}
    states, _ = puzzle.scramble(6, depth, np.random.default_rng(13))
    lengths = []
    for s in states:
        exact = exact_distance(puzzle, s, goal_ball, depth - ball_radius, ball_radius)
        assert exact is not None  # a walk of ``depth`` moves is within ``depth`` of the goal
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and len(out["actions"]) == exact
        assert puzzle.check_solution(s, out["actions"])
        lengths.append(exact)
    assert max(lengths) == depth  # the sample reaches the deepest distance asked for


def test_cube3_deeper_scrambles_are_solved_and_verified():
    puzzle = cube.Cube3("htm")
    spec = KorfCubePDB(puzzle, progress=False, **SMALL).ida_spec()
    states, _ = puzzle.scramble(4, 7, np.random.default_rng(10))
    for s in states:
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and len(out["actions"]) <= 7
        assert puzzle.check_solution(s, out["actions"])


def test_node_limit_and_deadline():
    puzzle = cube.Cube3("qtm")
    spec = KorfCubePDB(puzzle, progress=False, **SMALL).ida_spec()
    states, _ = puzzle.scramble(1, 40, np.random.default_rng(11))
    out = ida.search(puzzle, spec, states[0], 5000, None)
    assert out["status"] == "node-limit" and out["actions"] is None
    assert 5000 < out["nodes_generated"] <= 5000 + puzzle.num_actions  # one expansion
    t0 = time.monotonic()
    out = ida.search(puzzle, spec, states[0], None, time.monotonic() + 0.5)
    # generous: the machine running the tests may be heavily shared
    assert out["status"] == "timeout" and time.monotonic() - t0 < 5.0
    assert out["nodes_generated"] > 0


def test_solved_start():
    puzzle = cube.Cube3("htm")
    spec = KorfCubePDB(puzzle, progress=False, **SMALL).ida_spec()
    out = ida.search(puzzle, spec, puzzle.goal(), None, None)
    assert out["status"] == "solved" and out["actions"] == []


@pytest.mark.nojit
def test_move_pruning_rules():
    # qtm: faces of actions 2f, 2f+1; clockwise = even actions
    face = np.repeat(np.arange(6), 2)
    cw = np.arange(12) % 2 == 0
    U, Ui, D = 0, 1, 6

    def ok(seq, a, qtm=True, face=face, cw=cw):
        path = np.array(seq + [0], dtype=np.int64)
        return ida._allowed(a, len(seq), path, face, cw, qtm)

    assert ok([U], U) and not ok([U], Ui) and not ok([Ui], U) and not ok([Ui], Ui)
    assert ok([U], U) and not ok([U, U], U) and not ok([Ui, U], U)
    assert ok([U], D) and not ok([D], U) and ok([U, U], D) and not ok([D, D], U)
    # htm: never the same face twice
    hface = np.repeat(np.arange(6), 3)
    hcw = np.arange(18) % 3 == 0
    assert not ok([0], 2, qtm=False, face=hface, cw=hcw)
    assert ok([0], 9, qtm=False, face=hface, cw=hcw) and not ok([9], 0, qtm=False, face=hface, cw=hcw)


def test_through_the_solver_registry():
    ida_mod = pytest.importorskip("solvers.ida")
    from core.limits import Limits

    puzzle = cube.Cube2("htm")
    h = Cube2PDB(puzzle, progress=False)
    states, _ = puzzle.scramble(3, 9, np.random.default_rng(12))
    exact = np.asarray(puzzle.distance_table())[puzzle.index(states)]
    for s, d in zip(states, exact, strict=True):
        res = ida_mod.IDAStar().solve(puzzle, h, s, Limits(time_s=30))
        assert res.status == "solved" and res.length == d


def _naive_ida(puzzle, h, start, face, cw, qtm):
    """Child-by-child IDA* in plain Python with the kernel's move pruning; counts as ref_ida15.c."""
    num = puzzle.num_actions
    counts = dict(gen=0, exp=0)

    def allowed(a, path):
        if not path:
            return True
        f, lf = face[a], face[path[-1]]
        if f == lf:
            return (qtm and cw[a] and cw[path[-1]]
                    and not (len(path) >= 2 and face[path[-2]] == f))
        return f + 3 != lf

    def dfs(s, g, bound, path, nextb):
        for a in range(num):
            if not allowed(a, path):
                continue
            counts["gen"] += 1
            child = puzzle.apply(s[None, :], np.array([a]))[0]
            f = g + 1 + h(child)
            if f > bound:
                nextb[0] = min(nextb[0], f)
                continue
            path.append(a)
            if puzzle.is_goal(child[None, :])[0]:
                return True
            counts["exp"] += 1
            if dfs(child, g + 1, bound, path, nextb):
                return True
            path.pop()
        return False

    parity = perm_parity(np.asarray(puzzle.to_cubies(start[None, :])[0][0]))
    bound, iterations = h(start), 0
    while True:
        if qtm and (bound - parity) % 2:
            bound += 1
        iterations += 1
        counts["exp"] += 1
        path, nextb = [], [10**9]
        if dfs(start, 0, bound, path, nextb):
            return path, counts["gen"], counts["exp"], iterations
        bound = nextb[0]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube_counts_equal_a_child_by_child_search(metric):
    """nodes_generated / expanded / iterations as a one-child-at-a-time IDA* (ref_ida15.c) counts them."""
    puzzle = cube.Cube2(metric)
    heur = Cube2PDB(puzzle, progress=False)
    full = heur.ida_spec()
    # halve every packed 4-bit value: an admissible table that needs several iterations
    half = ((full.tables.ctab >> 1) & 0x77).astype(np.uint8)
    spec = replace(full, tables=full.tables._replace(ctab=half))
    face = [int(x) for x in full.params["faces"]]
    cw = [bool(x) for x in full.params["clockwise"]]
    states, _ = puzzle.scramble(5, 7, np.random.default_rng(21))
    for s in states:
        path, gen, exp, iterations = _naive_ida(
            puzzle, lambda x: int(heur(x[None, :])[0]) // 2, s, face, cw, metric == "qtm")
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and out["actions"] == path
        assert (out["nodes_generated"], out["nodes_expanded"], out["iterations"]) == (
            gen, exp, iterations)


@pytest.mark.nojit
def test_small_tables_solve_optimally_also_as_plain_python():
    """The cube search through the one driver, with small tables (also run without JIT)."""
    puzzle = cube.Cube3("htm")
    h = KorfCubePDB(puzzle, progress=False, **SMALL)
    spec = h.ida_spec()
    states, dist = bfs_ball(puzzle, 3)
    known = {st.tobytes(): int(d) for st, d in zip(states, dist, strict=True)}
    for s in puzzle.scramble(3, 3, np.random.default_rng(3))[0]:
        out = ida.search(puzzle, spec, s, None, None)
        assert out["status"] == "solved" and puzzle.check_solution(s, out["actions"])
        assert len(out["actions"]) == known[s.tobytes()]

