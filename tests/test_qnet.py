"""Q-networks and the searches that read them: Q* (``qstar``), Q-beam (``qbeam``) and deferred
evaluation in batch weighted A* (``bwas --deferred``), checked against breadth-first optima of
the 8-puzzle (its complete distance table); Q training targets, a short training run, loading and
refusals."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.status import Status
from heuristics.base import Heuristic, QValues
from puzzles.exhaustive import table_distances
from solvers.beam import BeamSearch
from solvers.best_first import BatchBestFirst

torch = pytest.importorskip("torch")

from tests.test_davi_cli import bench  # noqa: E402


class TableQ(Heuristic):
    """``Q(s, a) = 1 + d(child)`` from a distance function ``d`` on states (the 8-puzzle's exact
    table, or an admissible heuristic); illegal moves ``inf``. Counts the states it evaluates."""

    name = "table-q"

    def __init__(self, puzzle, distance) -> None:
        super().__init__(puzzle)
        self.distance = distance
        self.network_evaluations = 0

    def q_values(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        states = np.atleast_2d(states)
        self.network_evaluations += states.shape[0]
        children, valid = self.puzzle.expand(states)
        b, a, length = children.shape
        d = np.asarray(self.distance(children.reshape(b * a, length)), dtype=np.float64)
        q = 1.0 + d.reshape(b, a)
        q[~valid] = np.inf
        return q

    def __call__(self, states: np.ndarray) -> np.ndarray:
        return self.q_values(states).min(axis=1)


@pytest.fixture(scope="module")
def p8():
    return registry.get_puzzle("puzzle8")


@pytest.fixture(scope="module")
def starts(p8):
    rng = np.random.default_rng(59)
    states, _ = p8.scramble(12, 40, rng)
    return states, table_distances(p8, states)


def exact(p8):
    return lambda s: table_distances(p8, s)


def manhattan(p8):
    return registry.get_heuristic("manhattan", p8)


def test_table_q_is_a_q_function(p8):
    assert isinstance(TableQ(p8, exact(p8)), QValues)
    assert not isinstance(manhattan(p8), QValues)


@pytest.mark.parametrize("distance", [exact, manhattan])
def test_qstar_at_weight_one_finds_breadth_first_optima(p8, starts, distance):
    """With Q(s, a) = 1 + h(child) for an exact or a consistent admissible h, Q* at weight 1
    (batch 1, goals tested when popped) is A*: every length is the breadth-first optimum, and
    the Q-function is evaluated exactly once per expanded node."""
    states, optima = starts
    q = TableQ(p8, distance(p8))
    solver = BatchBestFirst(weight=1.0, batch=1, preset="qstar")
    for s, d in zip(states[:8], optima[:8], strict=True):
        r = solver.run(p8, q, s)
        assert r.status == Status.SOLVED
        assert p8.check_solution(s, r.actions)
        assert r.length == d
        assert r.network_evaluations == r.nodes_expanded == r.extra["evaluations"]


def test_qstar_with_an_exact_q_expands_only_the_path(p8, starts):
    states, optima = starts
    q = TableQ(p8, exact(p8))
    r = BatchBestFirst(weight=1.0, batch=1, preset="qstar").run(p8, q, states[0])
    # ties on f = d(start) lie only on optimal paths; each pop is one of them
    assert r.length == optima[0]
    assert r.nodes_expanded <= 4 * optima[0]


@pytest.mark.parametrize("batch", [1, 64])
def test_qstar_batches_solve_and_count_one_evaluation_per_expansion(p8, starts, batch):
    states, optima = starts
    q = TableQ(p8, manhattan(p8))
    solver = registry.get_solver("qstar", batch=batch)
    for s, d in zip(states[:4], optima[:4], strict=True):
        r = solver.run(p8, q, s)
        assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
        assert r.length >= d
        assert r.network_evaluations == r.nodes_expanded


def test_qbeam_with_an_exact_q_follows_an_optimal_path(p8, starts):
    """Width 1 with an exact Q takes a move of least Q at each step: a shortest path."""
    states, optima = starts
    q = TableQ(p8, exact(p8))
    for width in (1, 16):
        solver = registry.get_solver("qbeam", width=width)
        for s, d in zip(states, optima, strict=True):
            r = solver.run(p8, q, s)
            assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
            assert r.length == d
            assert r.network_evaluations == r.nodes_expanded == r.extra["evaluations"]
            assert r.h_start is None


def test_qbeam_with_manhattan_q_solves(p8, starts):
    states, optima = starts
    q = TableQ(p8, manhattan(p8))
    solver = registry.get_solver("qbeam", width=64)
    for s, d in zip(states, optima, strict=True):
        r = solver.run(p8, q, s)
        assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
        assert r.length >= d


def test_deferred_a_star_keeps_optimal_lengths(p8, starts):
    """Deferred evaluation at weight 1, goals tested when popped, with a consistent admissible
    heuristic: the same (optimal) lengths as A* and as breadth-first search; each node is
    evaluated at most once, and fewer nodes are evaluated than A* evaluates."""
    states, optima = starts
    h = manhattan(p8)
    plain = BatchBestFirst(weight=1.0, batch=1, goal_test="expand")
    deferred = BatchBestFirst(weight=1.0, batch=1, goal_test="expand", deferred=True)
    fewer = 0
    for s, d in zip(states[:6], optima[:6], strict=True):
        a, b = plain.run(p8, h, s), deferred.run(p8, h, s)
        assert a.status == b.status == Status.SOLVED
        assert a.length == b.length == d
        assert p8.check_solution(s, b.actions)
        assert b.extra["evaluations"] <= b.extra["nodes_stored"]
        fewer += b.extra["evaluations"] < a.extra["evaluations"]
    assert fewer > 0


def test_deferred_bwas_solves_with_the_registry_defaults(p8, starts):
    states, optima = starts
    h = manhattan(p8)
    for weight in (0.6, 1.0):
        solver = registry.get_solver("bwas", weight=weight, batch=16, deferred=True)
        assert solver.evaluation == "deferred"
        for s, d in zip(states[:4], optima[:4], strict=True):
            r = solver.run(p8, h, s)
            assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
            assert r.length >= d


def test_q_searches_refuse_a_heuristic_without_move_values(p8, starts):
    s = starts[0][0]
    with pytest.raises(InputError, match="Q-network"):
        BatchBestFirst(preset="qstar").solve(p8, manhattan(p8), s)
    with pytest.raises(InputError, match="Q-network"):
        BeamSearch(q=True).solve(p8, manhattan(p8), s)
    with pytest.raises(InputError, match="--deferred: applies to bwas, not to qstar"):
        BatchBestFirst(preset="qstar", deferred=True)
    with pytest.raises(InputError, match="gives none"):
        registry.check_solver_heuristic("qstar", "manhattan")


def test_cli_refuses_q_search_with_a_value_heuristic_in_one_line():
    r = bench("solve", "puzzle8", "--scramble", "U L", "--heuristic", "manhattan", "--solver",
              "qbeam")
    assert r.returncode == 2
    assert "qbeam" in r.stderr and "Q-network" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
