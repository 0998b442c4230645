"""IDA* kernel for the 3x3x3 under the three-axis coset heuristic (``pdb-coset``).

A node holds Korf's full-state coordinates (corner position rank, twist, the two 6-edge
indices: ``pdb_builders.korf_cube``), which decide the goal, and per axis ``k`` the raw coset
coordinates ``C_k, E_k`` of the cube seen along that axis (:mod:`pdb_builders.cube_coset`). A
child costs move-table lookups only: along axis ``k`` the move ``a`` acts as the move
``amap[k, a]`` (the move conjugated by the axis rotation), and its value is the table entry
``classof[C] * ne + econj[E, symof[C]]``, the max over the three axes. Move pruning, the
quarter-turn parity rule, the resumable search and the node counts are those of the Korf cube
kernel (:mod:`solvers._ida_cube`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from puzzles.base import Puzzle
from puzzles.permutations import parity
from solvers._ida_cube import CHUNK, MAX_DEPTH, _allowed, _unvisited_siblings
from solvers._ida_engine import EXP, GEN, ITER_DONE, NEXT, PAUSED, SOLVED, drive

_INF = 1 << 30
_D, _BOUND, _FRESH = 0, 1, 2
#: per node: cp, tw, eA, eB, then C_k, E_k for the three axes
_W = 10


@njit(cache=True, inline="always")
def _value(c: int, e: int, ne: int, classof: np.ndarray, symof: np.ndarray, econj: np.ndarray,
           table: np.ndarray) -> int:
    return table[classof[c] * ne + econj[e, symof[c]]]


@njit(cache=True)
def _expand(d: int, bound: int, path: np.ndarray, st: np.ndarray, kids: np.ndarray,
            fval: np.ndarray, face: np.ndarray, cw: np.ndarray, qtm: bool,
            cpm: np.ndarray, twm: np.ndarray, em: np.ndarray, cmove: np.ndarray,
            emove: np.ndarray, classof: np.ndarray, symof: np.ndarray, econj: np.ndarray,
            table: np.ndarray, amap: np.ndarray, ne: int) -> tuple[int, int]:
    """Generate every child of the node at depth ``d``; returns ``(children, least f > bound)``."""
    num_moves = cpm.shape[1]
    g = d + 1
    generated = 0
    nextb = _INF
    for a in range(num_moves):
        if not _allowed(a, d, path, face, cw, qtm):
            fval[d, a] = _INF
            continue
        generated += 1
        # the axes in turn, stopping at the first that cuts the child off: its f is then a
        # lower bound above ``bound`` (as the Korf kernel's passes), and the child is never
        # expanded, so its other coordinates are not needed
        h = 0
        for k in range(3):
            b = amap[k, a]
            c = cmove[st[d, 4 + 2 * k], b]
            e = emove[st[d, 5 + 2 * k], b]
            kids[d, a, 4 + 2 * k] = c
            kids[d, a, 5 + 2 * k] = e
            v = _value(c, e, ne, classof, symof, econj, table)
            if v > h:
                h = v
                if g + h > bound:
                    break
        f = g + h
        fval[d, a] = f
        if f > bound:
            if f < nextb:
                nextb = f
            continue
        kids[d, a, 0] = cpm[st[d, 0], a]
        kids[d, a, 1] = twm[st[d, 1], a]
        ea = st[d, 2]
        eb = st[d, 3]
        kids[d, a, 2] = em[ea >> 6, a] ^ (ea & 63)
        kids[d, a, 3] = em[eb >> 6, a] ^ (eb & 63)
    return generated, nextb


@njit(cache=True)
def _run(ctl: np.ndarray, cur: np.ndarray, path: np.ndarray, nxt: np.ndarray, st: np.ndarray,
         kids: np.ndarray, fval: np.ndarray, budget: int, face: np.ndarray, cw: np.ndarray,
         qtm: bool, goal_a: int, goal_b: int, cpm: np.ndarray, twm: np.ndarray, em: np.ndarray,
         cmove: np.ndarray, emove: np.ndarray, classof: np.ndarray, symof: np.ndarray,
         econj: np.ndarray, table: np.ndarray, amap: np.ndarray, ne: int) -> int:
    """Resume the depth-first iteration stored in the arrays (as ``solvers._ida_cube._run``)."""
    num_moves = cpm.shape[1]
    d = cur[_D]
    bound = cur[_BOUND]
    nextb = ctl[NEXT]
    gen = ctl[GEN]
    exp = ctl[EXP]
    stop = gen + budget
    if cur[_FRESH]:
        cur[_FRESH] = 0
        n, nb = _expand(0, bound, path, st, kids, fval, face, cw, qtm, cpm, twm, em, cmove,
                        emove, classof, symof, econj, table, amap, ne)
        gen += n
        if nb < nextb:
            nextb = nb
    status = ITER_DONE
    while d >= 0:
        a = nxt[d]
        if a >= num_moves:
            d -= 1
            continue
        if fval[d, a] > bound:
            nxt[d] = a + 1
            continue
        if gen >= stop:
            status = PAUSED
            break
        nxt[d] = a + 1
        path[d] = a
        if (kids[d, a, 0] == 0 and kids[d, a, 1] == 0 and kids[d, a, 2] == goal_a
                and kids[d, a, 3] == goal_b):
            d += 1
            status = SOLVED
            break
        if d + 1 >= path.shape[0]:
            continue
        for j in range(_W):
            st[d + 1, j] = kids[d, a, j]
        d += 1
        nxt[d] = 0
        exp += 1
        n, nb = _expand(d, bound, path, st, kids, fval, face, cw, qtm, cpm, twm, em, cmove,
                        emove, classof, symof, econj, table, amap, ne)
        gen += n
        if nb < nextb:
            nextb = nb
    cur[_D] = d
    ctl[NEXT] = nextb
    ctl[GEN] = gen
    ctl[EXP] = exp
    return status


def _kernel_args(puzzle: Puzzle, spec: IdaSpec) -> tuple[Any, ...]:
    p = spec.params
    face = np.asarray(p["faces"], dtype=np.int64)
    cw = np.asarray(p["clockwise"], dtype=np.bool_)
    if face.shape[0] != puzzle.num_actions:
        raise ValueError(f"cube coset IDA* spec has {face.shape[0]} actions, {puzzle.name} has "
                         f"{puzzle.num_actions}")
    return (face, cw, bool(p["metric"] == "qtm"), int(p["goal_a"]), int(p["goal_b"]),
            *spec.arrays, int(p["ne"]))


def coordinates(puzzle: Puzzle, spec: IdaSpec, states: np.ndarray) -> np.ndarray:
    """``(B, L)`` facelet states -> ``(B, 10)`` int64 node coordinates."""
    from pdb_builders import _cube_tables as K
    from pdb_builders import cube_coset as cc
    from pdb_builders import cube_symmetry as S
    from pdb_builders import korf_cube as kc

    p = spec.params
    parts = puzzle.to_cubies(np.atleast_2d(states))  # type: ignore[attr-defined]
    cubies = tuple(np.ascontiguousarray(x, dtype=np.int64) for x in parts)
    out = np.zeros((cubies[0].shape[0], _W), dtype=np.int64)
    out[:, :2] = K.corner_coords(cubies[0], cubies[1], kc.CUBE3_RELABEL)
    for col, edges in ((2, kc.KORF_EDGES[0]), (3, kc.KORF_EDGES[1])):
        out[:, col] = K.edge_coords(cubies[2], cubies[3], np.asarray(edges, dtype=np.int64))
    sp = cc.coset_space(p["metric"], p["corner_part"], p["edge_part"])
    for k, r in enumerate(S.axis_rotations()):
        out[:, 4 + 2 * k], out[:, 5 + 2 * k] = sp.project(S.conjugate(cubies, r))  # type: ignore[arg-type]
    return out


class CosetSearch:
    """One IDA* search under ``pdb-coset`` (the :class:`solvers._ida_engine.Search` protocol)."""

    def __init__(self, puzzle: Puzzle, spec: IdaSpec, start: np.ndarray) -> None:
        self.args = _kernel_args(puzzle, spec)
        self.root = coordinates(puzzle, spec, start)[0]
        goal_a, goal_b = self.args[3], self.args[4]
        r = self.root
        self.goal = r[0] == 0 and r[1] == 0 and r[2] == goal_a and r[3] == goal_b
        _, _, _, _, _, classof, symof, econj, table, _ = spec.arrays
        ne = int(spec.params["ne"])
        self.h_root = max(int(table[classof[r[4 + 2 * k]] * ne + econj[r[5 + 2 * k],
                                                                       symof[r[4 + 2 * k]]]])
                          for k in range(3))
        self.parity: int | None = None
        if spec.params["metric"] == "qtm":
            cperm = puzzle.to_cubies(np.asarray(start)[None, :])[0][0]  # type: ignore[attr-defined]
            self.parity = parity(np.asarray(cperm, dtype=np.int64))
        self.path = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.nxt = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
        self.st = np.zeros((MAX_DEPTH + 1, _W), dtype=np.int64)
        self.kids = np.zeros((MAX_DEPTH + 1, puzzle.num_actions, _W), dtype=np.int64)
        self.fval = np.zeros((MAX_DEPTH + 1, puzzle.num_actions), dtype=np.int64)
        self.cur = np.zeros(3, dtype=np.int64)
        self.ctl = np.zeros(3, dtype=np.int64)

    def is_goal(self) -> bool:
        return bool(self.goal)

    def _with_parity(self, bound: int) -> int:
        if self.parity is not None and (bound - self.parity) % 2:
            return bound + 1  # quarter turns: every solution has the corner permutation's parity
        return bound

    def first_bound(self) -> int:
        return self._with_parity(self.h_root)

    def next_bound(self, least_f: int) -> int:
        return self._with_parity(least_f)

    def begin(self, bound: int) -> None:
        self.st[0] = self.root
        self.nxt[0] = 0
        self.cur[:] = (0, bound, 1)

    def run(self, budget: int) -> int:
        return int(_run(self.ctl, self.cur, self.path, self.nxt, self.st, self.kids, self.fval,
                        budget, *self.args))

    def solution(self) -> list[int]:
        return [int(a) for a in self.path[: int(self.cur[_D])]]

    def generated_at_solution(self) -> int:
        return int(self.ctl[GEN]) - _unvisited_siblings(self.path, self.fval, int(self.cur[_D]))


def search(puzzle: Puzzle, spec: IdaSpec, start: np.ndarray, max_nodes: int | None,
           deadline_s: float | None) -> dict[str, Any]:
    """IDA* from ``start (L,)``; see :mod:`solvers.ida` for the contract."""
    return drive(CosetSearch(puzzle, spec, start), max_nodes, deadline_s, CHUNK, MAX_DEPTH)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel by solving a state two moves from the goal and map the tables' pages."""
    from solvers.memory import touch_pages

    touch_pages(spec.arrays)
    goal = puzzle.goal()
    near = puzzle.apply(puzzle.apply(goal[None, :], np.array([0])),
                        np.array([puzzle.num_actions - 1]))
    search(puzzle, spec, near[0], 10_000, time.monotonic() + 600.0)
