"""Local value iteration (Bischoff, Nguyen-Tuong, Markert and Knoll 2013): solver ``lvi``.

The tiles are placed in their numbering order (goal ``blank-last``). A *(G, R) subproblem* moves
the tiles of ``G`` home without ever moving a tile of ``R`` (the tiles already placed, which sit
on their home cells). Its state is where the tiles of ``G`` and the blank are among the cells
``R`` leaves free; the other tiles are not looked at. Value iteration over that small space gives
the local value function: here the cost-to-go ``d`` (value ``gamma ** d`` for any discount
``gamma < 1``, so "value 0" is "no local solution", ``d`` infinite); the local policy moves the
blank to the neighbour of least ``d`` (ties: ``U D L R``).

Stage ``i`` starts with ``G = {i}`` and ``R = {1 .. i-1}`` (with an initial region of ``l`` tiles:
``G = {l i - l + 1 .. l i}``). While the local value of the current state is 0, the highest tile
of ``R`` moves into ``G``. Then the policy is followed until ``G`` is home. A state belongs to
class ``S_k`` when the largest ``G`` it needed had ``k`` tiles. Tables are computed once per
``(G, R)`` and kept for the process (``TABLES_USED`` lists those a solve has used).

Value iteration runs as synchronous sweeps ``d <- min(d, 1 + min_a d(next(s, a)))`` over every
local state at once (a dense index: the free-cell index of each of the ``|G| + 1`` objects in
base ``F``, ``F`` free cells) until nothing changes.

Accounting: nodes are the states along the returned path (its length + 1), ``iterations`` the
stages. The solver first runs the policy once untimed, which computes every table the state needs
(``load_s``, like building a pattern database), then runs it again timed, tables cached: ``time_s``
and the peak memory are the policy's alone, and the tables' bytes are ``table_nbytes``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from puzzles.npuzzle import NPuzzle
from solvers.base import Solver, SolveResult, check_no_heuristic, finish
from solvers.ida import check_start
from solvers.memory import PeakMemory

UNSOLVED = np.int16(32767)  #: "value 0": no local solution


@dataclass(frozen=True)
class LocalTable:
    """The local cost-to-go of one (G, R) subproblem."""

    width: int
    group: tuple[int, ...]  #: G
    placed: tuple[int, ...]  #: R
    free: np.ndarray  #: (F,) the cells R leaves free
    index_of: np.ndarray  #: (N,) cell -> free index or -1
    neighbour: np.ndarray  #: (F, 4) free index of the blank's next cell per action, -1
    dist: np.ndarray  #: (F ** m,) int16 cost-to-go, UNSOLVED where no local solution or invalid
    states: int  #: local states (arrangements of G and the blank on the free cells)
    sweeps: int  #: value-iteration sweeps until nothing changed

    def index(self, board: np.ndarray) -> int:
        """The local state of a full board (cell -> tile)."""
        where = np.argsort(board)
        f = len(self.free)
        idx = int(self.index_of[where[0]])
        for k, t in enumerate(self.group, start=1):
            idx += int(self.index_of[where[t]]) * f ** k
        return idx


def _blank_moves(width: int) -> np.ndarray:
    from puzzles.npuzzle import blank_moves_table

    return np.asarray(blank_moves_table(width))


@cache
def local_table(width: int, group: tuple[int, ...], placed: tuple[int, ...]) -> LocalTable:
    """Value iteration for the (G, R) subproblem on the ``width x width`` board."""
    from puzzles.npuzzle import goal_state

    n = width * width
    goal = goal_state(width, "blank-last")
    home = np.argsort(goal)
    taken = {int(home[t]) for t in placed}
    free = np.array([c for c in range(n) if c not in taken], dtype=np.int64)
    f, m = len(free), len(group) + 1
    index_of = np.full(n, -1, dtype=np.int64)
    index_of[free] = np.arange(f)
    moves = _blank_moves(width)
    neighbour = np.full((f, 4), -1, dtype=np.int64)
    for i, c in enumerate(free):
        for a in range(4):
            t = moves[c, a]
            if t >= 0 and index_of[t] >= 0:
                neighbour[i, a] = index_of[t]
    size = f ** m
    idx = np.arange(size, dtype=np.int64)
    pos = np.stack([(idx // f ** k) % f for k in range(m)], axis=1).astype(np.int16)
    srt = np.sort(pos, axis=1)
    valid = (np.diff(srt, axis=1) != 0).all(axis=1) if m > 1 else np.ones(size, dtype=bool)
    nxt = []
    for a in range(4):
        t = neighbour[pos[:, 0], a]
        ok = valid & (t >= 0)
        step = np.where(ok, t - pos[:, 0], 0).astype(np.int64)
        for k in range(1, m):  # the tile on the blank's next cell moves to the blank's cell
            hit = ok & (pos[:, k] == t)
            step += np.where(hit, (pos[:, 0] - t) * f ** k, 0)
        nxt.append(np.where(ok, idx + step, -1))
    dist = np.full(size, UNSOLVED, dtype=np.int16)
    at_home = valid.copy()
    for k, tile in enumerate(group, start=1):
        at_home &= pos[:, k] == index_of[home[tile]]
    dist[at_home] = 0
    sweeps = 0
    while True:  # synchronous Bellman sweeps until the cost-to-go stops changing
        sweeps += 1
        best = dist.copy()
        for a in range(4):
            ok = nxt[a] >= 0
            cand = np.full(size, UNSOLVED, dtype=np.int16)
            reach = dist[nxt[a][ok]]
            cand[ok] = np.where(reach < UNSOLVED, reach + 1, UNSOLVED)
            best = np.minimum(best, cand)
        if np.array_equal(best, dist):
            break
        dist = best
    dist.setflags(write=False)
    return LocalTable(width, tuple(group), tuple(placed), free, index_of, neighbour, dist,
                      int(valid.sum()), sweeps)


#: (width, G, R) -> local states, for every table a solve has used in this process
TABLES_USED: dict[tuple[int, tuple[int, ...], tuple[int, ...]], int] = {}


@dataclass
class LviResult:
    actions: list[int]
    largest_group: int  #: the class S_k of the state: k = the most tiles G ever held
    stages: int
    table_nbytes: int  #: bytes of the local tables this solve read


def lvi_solve(width: int, board: np.ndarray, region: int = 1,
              deadline: float | None = None) -> LviResult | None:
    """Solve ``board`` (cell -> tile, goal blank-last); None when the time ran out."""
    n = width * width
    moves = _blank_moves(width)
    b = np.asarray(board, dtype=np.int64).copy()
    blank = int(np.flatnonzero(b == 0)[0])
    actions: list[int] = []
    largest = 0
    stages = 0
    nbytes = 0
    tiles = list(range(1, n))
    for start in range(0, n - 1, region):
        group = tiles[start:start + region]
        placed = tiles[:start]
        while True:
            table = local_table(width, tuple(group), tuple(placed))
            TABLES_USED[(width, table.group, table.placed)] = table.states
            nbytes += table.dist.nbytes
            s = table.index(b)
            if table.dist[s] < UNSOLVED:
                break
            if not placed:
                raise RuntimeError("no local solution with every tile in G (unsolvable state)")
            group = [placed[-1], *group]
            placed = placed[:-1]
        largest = max(largest, len(group))
        stages += 1
        f = len(table.free)
        while table.dist[s] > 0:
            if deadline is not None and time.perf_counter() > deadline:
                return None
            bi = int(table.index_of[blank])
            best_a, best_s, best_d = -1, -1, int(UNSOLVED)
            for a in range(4):
                t = int(table.neighbour[bi, a])
                if t < 0:
                    continue
                tile = int(b[table.free[t]])
                k = table.group.index(tile) + 1 if tile in table.group else 0
                ns = s + (t - bi) + (k and (bi - t) * f ** k)
                if table.dist[ns] < best_d:
                    best_a, best_s, best_d = a, ns, int(table.dist[ns])
            target = int(moves[blank, best_a])
            b[blank], b[target] = b[target], 0
            blank = target
            actions.append(best_a)
            s = best_s
    return LviResult(actions, largest, stages, nbytes)


class LocalValueIteration(Solver):
    """Solve the 8- or 15-puzzle by local value iteration (see the module text)."""

    name = "lvi"

    def __init__(self, region: int | None = None) -> None:
        # bounds and default: the registry's entry, their one statement
        self.region = int(registry.solver_entry(self.name).settings({"region": region},
                                                                    "solver")["region"])

    def solve(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        if not isinstance(puzzle, NPuzzle) or puzzle.width not in (3, 4):
            raise InputError(f"solver lvi: applies to puzzle8 and puzzle15, not {puzzle.name}")
        if puzzle.layout != "blank-last":
            raise InputError("solver lvi: places the tiles in order for the blank-last goal "
                             f"(not {puzzle.layout})")
        check_no_heuristic(self.name, heuristic)
        limits = limits or Limits()
        start = check_start(puzzle, start)
        width = int(puzzle.width)
        # a first pass computes (or finds cached) every table this state needs, so the timed
        # pass below measures the policy alone; the tables' time is loading, as a PDB's build
        t_load = time.perf_counter()
        lvi_solve(width, start, self.region)
        load_s = time.perf_counter() - t_load
        deadline = None if limits.time_s is None else time.perf_counter() + limits.time_s
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            out = lvi_solve(width, start, self.region, deadline)
            elapsed = time.perf_counter() - t0
        if out is None:
            return finish(puzzle, start, self.name, heuristic.name, status=Status.TIMEOUT,
                          actions=None, generated=0, expanded=0, iterations=0, h_start=None,
                          time_s=elapsed, load_s=load_s, peak_rss_bytes=mem.peak_bytes, extra={})
        nodes = len(out.actions) + 1
        return finish(puzzle, start, self.name, heuristic.name, status=Status.SOLVED,
                      actions=out.actions, generated=nodes, expanded=nodes,
                      iterations=out.stages, h_start=None, time_s=elapsed, load_s=load_s,
                      peak_rss_bytes=mem.peak_bytes,
                      extra={"class": out.largest_group, "region": self.region,
                             "table_nbytes": out.table_nbytes})
