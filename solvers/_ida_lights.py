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
dead ends or by the cost bound), over all iterations, up to the first solution. The kernel is
resumable: it returns to Python every ``CHUNK`` generated nodes, so time and node limits are
checked between chunks.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from core.errors import InputError
from heuristics.base import IdaSpec
from puzzles.base import Puzzle

#: generated nodes per kernel call between time checks
CHUNK = 1 << 20

_INF = 1 << 30
# indices into the int64 ``st`` array holding the search's scalars
_DEPTH, _ON, _BOUND, _NEXT, _GEN, _EXP = 0, 1, 2, 3, 4, 5


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
def _run(lights, toggles, count, fin_cells, fin_start, path, nxt, st, budget):  # pragma: no cover
    """Continue one cost-bounded depth-first iteration for at most ``budget`` generated nodes.

    ``lights`` (N,) uint8 is the current node's state; ``path`` (N + 1,) the presses from the
    start; ``nxt`` (N + 2,) the next candidate press at each depth; ``st`` (6,) int64 holds
    depth, lit count, bound, next bound, generated and expanded counters. Returns 0 when the
    budget ran out (call again to resume), 1 when the node at ``st[depth]`` is the goal
    (``path[:depth]`` solves the start), 2 when the iteration finished without a solution.
    """
    N = lights.shape[0]
    depth = st[0]
    on = st[1]
    bound = st[2]
    next_bound = st[3]
    gen0 = st[4]
    generated = st[4]
    expanded = st[5]
    code = 0
    while True:
        if generated - gen0 >= budget:
            code = 0
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
                code = 2
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
            code = 1
            break
        nxt[depth] = p + 1
        expanded += 1
    st[0] = depth
    st[1] = on
    st[3] = next_bound
    st[4] = generated
    st[5] = expanded
    return code


def _board_size(puzzle: Puzzle) -> int:
    n = math.isqrt(int(puzzle.state_dim))
    if n * n != puzzle.state_dim or puzzle.num_actions != puzzle.state_dim:
        raise InputError(f"--solver ida: {puzzle.name} is not a square Lights Out board")
    return n


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
    toggles, count, fin_cells, fin_start = tables(n)
    lights = np.ascontiguousarray(s, dtype=np.uint8).copy()
    path = np.zeros(N + 1, dtype=np.int64)
    nxt = np.zeros(N + 2, dtype=np.int64)
    st = np.zeros(6, dtype=np.int64)
    on = int(lights.sum())
    result: dict[str, Any] = dict(status="unsolvable", actions=None, nodes_generated=0,
                                  nodes_expanded=0, iterations=0)
    if on == 0:
        result.update(status="solved", actions=[])
        return result
    bound = (on + 4) // 5
    generated = expanded = iterations = 0
    while True:
        iterations += 1
        nxt[0] = 0
        st[:] = (0, on, bound, _INF, generated, expanded + 1)
        while True:
            budget = CHUNK
            if max_nodes is not None:
                budget = min(budget, max_nodes - int(st[_GEN]))
            code = _run(lights, toggles, count, fin_cells, fin_start, path, nxt, st, budget)
            generated, expanded = int(st[_GEN]), int(st[_EXP])
            if code == 1:
                depth = int(st[_DEPTH])
                result.update(status="solved", actions=[int(a) for a in path[:depth]])
                break
            if code == 0 and max_nodes is not None and generated >= max_nodes:
                result["status"] = "node-limit"
                break
            if deadline_s is not None and time.monotonic() >= deadline_s:
                result["status"] = "timeout"
                break
            if code == 2:
                break
        if code != 2 or result["status"] == "timeout":
            break
        if st[_NEXT] >= _INF:  # nothing beyond the bound: no solution exists
            result["status"] = "unsolvable"
            break
        bound = int(st[_NEXT])
    result.update(nodes_generated=generated, nodes_expanded=expanded, iterations=iterations)
    return result


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel (one tiny search on a 3x3 board's tables)."""
    toggles, count, fin_cells, fin_start = tables(3)
    lights = np.zeros(9, dtype=np.uint8)
    _press(lights, toggles, count, 4)
    path = np.zeros(10, dtype=np.int64)
    nxt = np.zeros(11, dtype=np.int64)
    st = np.array([0, int(lights.sum()), 1, _INF, 0, 1], dtype=np.int64)
    _run(lights, toggles, count, fin_cells, fin_start, path, nxt, st, 1000)
