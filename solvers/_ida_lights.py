"""IDA* kernel for Lights Out with the ``lights-on`` heuristic (``ceil(lights on / 5)``).

State: ``uint8`` array of shape ``(n*n,)`` of 0/1 lights, row-major; action ``p`` presses cell
``p`` (toggles it and its up to four neighbours); the goal is all lights off.

Move pruning (never loses an optimal solution): presses commute and a press pressed twice
cancels, so an optimal solution is a set of cells and can be pressed in increasing cell order.
The search therefore only presses cells in strictly increasing index order. A consequence is
exact dead-end detection: once every press that can toggle cell ``k`` lies behind the search
(``last_toggle[k]`` is below the next allowed press), a lit cell ``k`` can never be switched off,
so (a) a child whose press leaves such a cell lit is discarded after its generation and (b) the
remaining siblings are not generated once skipping a press leaves such a cell lit.

"Nodes generated" counts children produced by a press (including children then discarded as
dead ends or by the cost bound), over all iterations, up to the first solution. The search is
resumable: the driver (``solvers._ida_engine``) runs it in slices of ``CHUNK`` generated nodes
and checks time and node limits between them.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from core.errors import InputError
from heuristics.base import IdaSpec
from puzzles.base import Puzzle
from solvers._ida_engine import EXP, GEN, INF, ITER_DONE, NEXT, PAUSED, SOLVED, drive

#: generated nodes per kernel call between time checks
CHUNK = 1 << 20

# slots of ``cur``: depth, lit cells, cost bound
_DEPTH, _ON, _BOUND = 0, 1, 2


@lru_cache(maxsize=32)
def tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Press and ordering tables of an ``n x n`` board.

    Returns ``(toggles (N, 5) int64, toggle_count (N,) int64, fin_cells (N,) int64,
    fin_start (N + 1,) int64)`` with ``N = n*n``: ``toggles[p, :toggle_count[p]]`` are the cells
    press ``p`` toggles; ``fin_cells[fin_start[q]:fin_start[q + 1]]`` are the cells whose last
    toggling press is ``q`` (they are final once the search has moved past press ``q``).
    """
    N = n * n
    toggles = np.full((N, 5), -1, dtype=np.int64)
    count = np.zeros(N, dtype=np.int64)
    last = np.zeros(N, dtype=np.int64)
    for p in range(N):
        r, c = divmod(p, n)
        cells = [p]
        if r > 0:
            cells.append(p - n)
        if r < n - 1:
            cells.append(p + n)
        if c > 0:
            cells.append(p - 1)
        if c < n - 1:
            cells.append(p + 1)
        toggles[p, : len(cells)] = cells
        count[p] = len(cells)
        for k in cells:  # press p toggles k and k toggles under press p (symmetric)
            last[k] = max(last[k], p)
    fin_cells = np.argsort(last, kind="stable").astype(np.int64)
    fin_start = np.searchsorted(last[fin_cells], np.arange(N + 1)).astype(np.int64)
    for a in (toggles, count, fin_cells, fin_start):
        a.setflags(write=False)
    return toggles, count, fin_cells, fin_start


@njit(cache=True)
def _press(lights, toggles, count, p):  # pragma: no cover - compiled
    """Press cell ``p`` in place; return the change in the number of lit cells."""
    delta = 0
    for j in range(count[p]):
        k = toggles[p, j]
        if lights[k]:
            lights[k] = 0
            delta -= 1
        else:
            lights[k] = 1
            delta += 1
    return delta


@njit(cache=True)
def _run(lights, toggles, count, fin_cells, fin_start, path, nxt, cur, ctl, budget):  # pragma: no cover
    """Continue one cost-bounded depth-first iteration for at most ``budget`` generated nodes.

    ``lights`` (N,) uint8 is the current node's state; ``path`` (N + 1,) the presses from the
    start; ``nxt`` (N + 2,) the next candidate press at each depth; ``cur`` (3,) int64 the depth,
    lit count and bound; ``ctl`` the driver's counters. Returns PAUSED (call again to resume),
    SOLVED (``path[:depth]`` solves the start) or ITER_DONE.
    """
    N = lights.shape[0]
    depth = cur[_DEPTH]
    on = cur[_ON]
    bound = cur[_BOUND]
    next_bound = ctl[NEXT]
    gen0 = ctl[GEN]
    generated = ctl[GEN]
    expanded = ctl[EXP]
    code = PAUSED
    while True:
        if generated - gen0 >= budget:
            code = PAUSED
            break
        p = nxt[depth]
        m = 0
        if depth > 0:
            m = path[depth - 1] + 1
        ok = p < N
        if ok and p > m:
            # skipping press p - 1 finalises the cells it toggles last
            for j in range(fin_start[p - 1], fin_start[p]):
                if lights[fin_cells[j]]:
                    ok = False
                    break
        if not ok:
            if depth == 0:
                code = ITER_DONE
                break
            depth -= 1
            on += _press(lights, toggles, count, path[depth])
            continue
        nxt[depth] = p + 1
        on += _press(lights, toggles, count, p)
        generated += 1
        dead = False
        for j in range(fin_start[p], fin_start[p + 1]):
            if lights[fin_cells[j]]:
                dead = True
                break
        if dead:
            on += _press(lights, toggles, count, p)
            continue
        f = depth + 1 + (on + 4) // 5
        if f > bound:
            if f < next_bound:
                next_bound = f
            on += _press(lights, toggles, count, p)
            continue
        path[depth] = p
        depth += 1
        if on == 0:
            code = SOLVED
            break
        nxt[depth] = p + 1
        expanded += 1
    cur[_DEPTH] = depth
    cur[_ON] = on
    ctl[NEXT] = next_bound
    ctl[GEN] = generated
    ctl[EXP] = expanded
    return code


def _board_size(puzzle: Puzzle) -> int:
    n = math.isqrt(int(puzzle.state_dim))
    if n * n != puzzle.state_dim or puzzle.num_actions != puzzle.state_dim:
        raise InputError(f"--solver ida: {puzzle.name} is not a square Lights Out board")
    return n


class LightsSearch:
    """One Lights Out IDA* search (the :class:`solvers._ida_engine.Search` protocol)."""

    def __init__(self, n: int, start: np.ndarray) -> None:
        N = n * n
        self.tables = tables(n)
        self.lights = np.ascontiguousarray(start, dtype=np.uint8).copy()
        self.on0 = int(self.lights.sum())
        self.path = np.zeros(N + 1, dtype=np.int64)
        self.nxt = np.zeros(N + 2, dtype=np.int64)
        self.cur = np.zeros(3, dtype=np.int64)
        self.ctl = np.zeros(3, dtype=np.int64)

    def is_goal(self) -> bool:
        return self.on0 == 0

    def first_bound(self) -> int:
        return (self.on0 + 4) // 5

    def next_bound(self, least_f: int) -> int:
        return least_f

    def begin(self, bound: int) -> None:
        self.nxt[0] = 0
        self.cur[:] = (0, self.on0, bound)

    def run(self, budget: int) -> int:
        toggles, count, fin_cells, fin_start = self.tables
        return int(_run(self.lights, toggles, count, fin_cells, fin_start, self.path, self.nxt,
                        self.cur, self.ctl, budget))

    def solution(self) -> list[int]:
        return [int(a) for a in self.path[: int(self.cur[_DEPTH])]]

    def generated_at_solution(self) -> int:
        return int(self.ctl[GEN])


def search(
    puzzle: Puzzle,
    spec: IdaSpec,
    start: np.ndarray,
    max_nodes: int | None,
    deadline_s: float | None,
) -> dict[str, Any]:
    """IDA* from ``start`` (``(n*n,)`` uint8); the contract is in :mod:`solvers.ida`."""
    if spec.kind != "lights-on":
        raise InputError(f"--heuristic: the lights IDA* kernel knows 'lights-on', not {spec.kind!r}")
    n = _board_size(puzzle)
    N = n * n
    s = np.asarray(start)
    if s.shape != (N,):
        raise InputError(f"start: expected shape ({N},), got {s.shape}")
    if np.any(s > 1):
        raise InputError("start: Lights Out cells must be 0 or 1")
    # f <= depth + 1 + ceil(lit / 5) with depth <= N: no bound of a finite search goes past that
    return drive(LightsSearch(n, s), max_nodes, deadline_s, CHUNK, N + 1 + (N + 4) // 5)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel (one tiny search on a 3x3 board's tables)."""
    toggles, count, fin_cells, fin_start = tables(3)
    lights = np.zeros(9, dtype=np.uint8)
    _press(lights, toggles, count, 4)
    path = np.zeros(10, dtype=np.int64)
    nxt = np.zeros(11, dtype=np.int64)
    cur = np.array([0, int(lights.sum()), 1], dtype=np.int64)
    ctl = np.array([0, 1, INF], dtype=np.int64)
    _run(lights, toggles, count, fin_cells, fin_start, path, nxt, cur, ctl, 1000)
