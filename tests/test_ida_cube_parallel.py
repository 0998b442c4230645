"""Parallel IDA* on the cube kernels (Korf's databases and the coset heuristic with its
options), on small tables: the same optimal lengths as one thread, and every iteration but the
last generates exactly the nodes one thread generates (the split forced from the first
iteration on, at frontier depths 2 and 3, so the move pruning after a subtree root reads the
path above it)."""

from __future__ import annotations

import time

import numpy as np
import pytest

cube = pytest.importorskip("puzzles.cube")

from heuristics.pdb_coset import CosetCubePDB  # noqa: E402
from heuristics.pdb_cube import KorfCubePDB  # noqa: E402
from solvers import _ida_cube, _ida_cube_coset, _ida_cube_parallel  # noqa: E402

KORF_SMALL = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}
#: (threads, frontier nodes per thread): frontier depth 2, then 3
SPLITS = [(2, 16), (3, 100)]


def _korf(puzzle):
    return _ida_cube, KorfCubePDB(puzzle, progress=False, **KORF_SMALL)


def _coset(probe, corner, parts=("set", "none")):
    def make(puzzle):
        return _ida_cube_coset, CosetCubePDB(puzzle, *parts, progress=False,
                                             probe_inverse=probe, corner_pdb=corner)
    return make


KERNELS = {
    "korf": _korf,
    "coset": _coset("off", "none"),
    "coset-near-corners": _coset("near", "corner-perm"),
    "coset-on": _coset("on", "none", ("full", "none")),
    "coset-on-twist": _coset("on", "corner-twist"),
}


def _compare(module, puzzle, spec, states, threads):
    for s in states:
        one = module.search(puzzle, spec, s, None, None)
        many = module.search(puzzle, spec, s, None, None, threads=threads)
        assert one["status"] == many["status"] == "solved"
        assert puzzle.check_solution(s, one["actions"])
        assert puzzle.check_solution(s, many["actions"])
        assert len(many["actions"]) == len(one["actions"])
        assert many["iterations"] == one["iterations"] == len(one["iteration_nodes"])
        assert many["iteration_nodes"][:-1] == one["iteration_nodes"][:-1]
        assert sum(many["iteration_nodes"]) == many["nodes_generated"]
        assert many["nodes_expanded"] >= len(many["actions"])


@pytest.mark.parametrize("metric", ["htm", "qtm"])
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("threads, per_thread", SPLITS)
def test_parallel_iterations_match_one_thread(monkeypatch, metric, kernel, threads, per_thread):
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_cube_parallel, "NODES_PER_THREAD", per_thread)
    puzzle = cube.Cube3(metric)
    module, h = KERNELS[kernel](puzzle)
    spec = h.ida_spec()
    rng = np.random.default_rng(31 + threads)
    # depths 1-2: the frontier itself meets the goal; 7-8: several iterations below it
    states = np.concatenate([puzzle.scramble(1, d, rng)[0] for d in (1, 2, 7, 7, 8)])
    _compare(module, puzzle, spec, states, threads)


def test_unsplit_iterations_and_limits(monkeypatch):
    """Small iterations stay in one thread (the one-thread counts throughout); node and time
    limits stop the threads; the solver's ``threads`` option reaches the cube kernels."""
    from core.limits import Limits
    from solvers.ida import IDAStar

    puzzle = cube.Cube3("htm")
    module, h = _coset("near", "corner-perm")(puzzle)
    spec = h.ida_spec()
    states, _ = puzzle.scramble(2, 8, np.random.default_rng(5))
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 1 << 62)
    for s in states:  # below SPLIT_MIN_NODES every iteration runs from the root
        one = module.search(puzzle, spec, s, None, None)
        two = module.search(puzzle, spec, s, None, None, threads=2)
        assert two["iteration_nodes"] == one["iteration_nodes"]
        assert two["nodes_expanded"] == one["nodes_expanded"]
        assert two["actions"] == one["actions"]  # the same depth-first order
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 0)
    far = puzzle.scramble(1, 30, np.random.default_rng(6))[0][0]
    out = module.search(puzzle, spec, far, 50_000, None, threads=2)
    assert out["status"] == "node-limit" and out["actions"] is None
    # checked after every subtree and slice: the threads stop within a slice each
    assert 50_000 < out["nodes_generated"] <= 50_000 + 2 * _ida_cube.CHUNK
    t0 = time.monotonic()
    out = module.search(puzzle, spec, far, None, time.monotonic() + 0.3, threads=2)
    assert out["status"] == "timeout"
    assert time.monotonic() - t0 < 3.0
    for make in (_korf, _coset("on", "none")):
        _, heuristic = make(puzzle)
        r = IDAStar(threads=2).solve(puzzle, heuristic, states[0], Limits(time_s=60))
        assert r.status == "solved" and r.extra["threads"] == 2
        assert len(r.actions) == len(module.search(puzzle, spec, states[0], None, None)["actions"])
