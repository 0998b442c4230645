"""Exact Lights Out solver: linear algebra over GF(2).

Pressing a button twice undoes it and presses commute, so a solution is a set of buttons ``x``
with ``A x = s xor goal`` over GF(2), where column ``a`` of ``A`` is the set of lights action
``a`` toggles. The shortest solution is the lightest ``x``: the particular solution plus the
lightest combination of the null space (enumerated; the null space of 7x7 Lights Out is empty).
The press matrix is read off the puzzle itself (``apply`` on the goal), so any board size works.
"""

from __future__ import annotations

import time
from itertools import product

import numpy as np

from heuristics.base import Heuristic
from puzzles.base import InputError, Puzzle
from solvers.base import Limits, Solver, SolveResult

_MAX_NULLITY = 16


def press_matrix(puzzle: Puzzle) -> np.ndarray:
    """``(L, A)`` 0/1 matrix: entry ``[i, a]`` is 1 when action ``a`` toggles light ``i``."""
    goal = puzzle.goal().astype(np.uint8)
    cols = []
    for a in range(puzzle.num_actions):
        after = puzzle.apply(goal[None, :], np.array([a]))[0].astype(np.uint8)
        if after.max() > 1 or goal.max() > 1:
            raise InputError(f"{puzzle.name}: the GF(2) solver needs 0/1 light states")
        cols.append(after ^ goal)
    return np.stack(cols, axis=1)


def _solve_all(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Row-reduce ``[A | B]`` over GF(2) for many right-hand sides ``B (L, K)``.

    Returns ``(x (A, K) particular solutions, null (A, d) null-space basis)`` or None when some
    column of ``B`` has no solution.
    """
    m = np.concatenate([a, b], axis=1).astype(np.uint8) % 2
    n_rows, n_cols = a.shape
    pivots = []
    r = 0
    for c in range(n_cols):
        rows = np.flatnonzero(m[r:, c]) + r
        if not len(rows):
            continue
        p = rows[0]
        if p != r:
            m[[r, p]] = m[[p, r]]
        others = np.flatnonzero(m[:, c])
        others = others[others != r]
        m[others] ^= m[r]
        pivots.append(c)
        r += 1
        if r == n_rows:
            break
    if m[r:, n_cols:].any():
        return None
    x = np.zeros((n_cols, b.shape[1]), dtype=np.uint8)
    for i, c in enumerate(pivots):
        x[c] = m[i, n_cols:]
    free = [c for c in range(n_cols) if c not in pivots]
    null = np.zeros((n_cols, len(free)), dtype=np.uint8)
    for j, f in enumerate(free):
        null[f, j] = 1
        for i, c in enumerate(pivots):
            null[c, j] = m[i, f]
    return x, null


def _lightest(x: np.ndarray, null: np.ndarray) -> np.ndarray:
    """For each column of ``x (A, K)`` the lightest ``x + null @ c``."""
    d = null.shape[1]
    if d == 0:
        return x
    if d > _MAX_NULLITY:
        raise InputError(f"null space of dimension {d} is too large to enumerate")
    combos = np.array(list(product((0, 1), repeat=d)), dtype=np.uint8)  # (2^d, d)
    shifts = (null.astype(np.int64) @ combos.T.astype(np.int64)) % 2  # (A, 2^d)
    best = np.empty_like(x)
    for k in range(x.shape[1]):
        cand = (x[:, k, None] ^ shifts.astype(np.uint8))
        best[:, k] = cand[:, int(np.argmin(cand.sum(axis=0)))]
    return best


def gf2_optimal_lengths(puzzle: Puzzle, states: np.ndarray) -> np.ndarray:
    """Optimal solution lengths ``(B,)`` of states ``(B, L)``."""
    a = press_matrix(puzzle)
    b = (np.atleast_2d(states).astype(np.uint8) ^ puzzle.goal().astype(np.uint8)[None, :]).T
    res = _solve_all(a, b)
    if res is None:
        raise InputError(f"{puzzle.name}: a state is not solvable")
    return _lightest(*res).sum(axis=0).astype(np.int64)


class GF2Solver(Solver):
    """Optimal Lights Out solutions by Gaussian elimination over GF(2) (ignores the heuristic)."""

    name = "gf2"

    def __init__(self, **_: object) -> None:
        self._matrix: dict[str, np.ndarray] = {}

    def solve(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        t0 = time.perf_counter()
        if puzzle.name not in self._matrix:
            self._matrix[puzzle.name] = press_matrix(puzzle)
        a = self._matrix[puzzle.name]
        b = (np.asarray(start, dtype=np.uint8) ^ puzzle.goal().astype(np.uint8))[:, None]
        res = _solve_all(a, b)
        hname = getattr(heuristic, "name", "")
        if res is None:
            return SolveResult("unsolvable", None, None, 0, 0, 0, None, time.perf_counter() - t0,
                               heuristic=hname, solver=self.name)
        x = _lightest(*res)[:, 0]
        actions = [int(i) for i in np.flatnonzero(x)]
        return SolveResult("solved", actions, len(actions), 0, 0, 1, None,
                           time.perf_counter() - t0, heuristic=hname, solver=self.name)
