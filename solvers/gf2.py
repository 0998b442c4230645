"""The exact Lights Out solver as a solver configuration (``gf2`` in the registry).

Presses commute and pressing twice undoes a press, so the shortest solution is the lightest
solution of a linear system over GF(2); ``puzzles.lightsout.LightsOut.optimal_solution`` computes
it (``puzzles.gf2``). This wrapper returns it as a ``SolveResult`` so suites can compare it with
heuristic search; it runs with the ``zero``
heuristic (it uses none).
"""

from __future__ import annotations

import time

import numpy as np

from core.capabilities import SolvesOptimally
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from solvers.base import Solver, SolveResult, check_no_heuristic


def gf2_optimal_lengths(puzzle: Puzzle, states: np.ndarray) -> np.ndarray:
    """Optimal solution lengths ``(B,)`` of Lights Out states ``(B, L)``."""
    if not isinstance(puzzle, SolvesOptimally):
        raise InputError(f"{puzzle.name}: the GF(2) solver applies to Lights Out only")
    return np.asarray(puzzle.optimal_lengths(np.atleast_2d(states)), dtype=np.int64)


class GF2Solver(Solver):
    """Optimal Lights Out solutions by Gaussian elimination over GF(2)."""

    name = "gf2"

    def __init__(self, **_: object) -> None:
        pass

    def solve(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        if not isinstance(puzzle, SolvesOptimally):
            raise InputError(f"solver gf2: applies to Lights Out only, not {puzzle.name}")
        check_no_heuristic(self.name, heuristic)
        t0 = time.perf_counter()
        hname = heuristic.name
        try:
            actions = [int(a) for a in puzzle.optimal_solution(np.asarray(start))]
        except ValueError:
            return SolveResult(Status.UNSOLVABLE, None, None, 0, 0, 0, None, time.perf_counter() - t0,
                               heuristic=hname, solver=self.name)
        return SolveResult(Status.SOLVED, actions, len(actions), 0, 0, 1, None,
                           time.perf_counter() - t0, heuristic=hname, solver=self.name)
