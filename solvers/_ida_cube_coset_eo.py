"""IDA* kernel for the 3x3x3 under the two-bit coset table with every edge flip
(``pdb-coset-eo``, :mod:`heuristics.pdb_coset_eo`).

A node holds Korf's full-state coordinates (corner position rank, twist, the two 6-edge
indices), which decide the goal, and per axis ``k`` the raw coset coordinates ``C_k, E_k`` of the
cube seen along that axis (:mod:`pdb_builders.cube_coset_eo`); a child's follow from move
tables (along axis ``k`` the move ``a`` acts as ``amap[k, a]``). Move pruning, the quarter-turn
parity rule, the resumable search, the node counts and the parallel search are those of the
other cube kernels (:mod:`solvers._ida_cube`, :mod:`solvers._ida_cube_coset`).

A lookup reads the two-bit code of entry ``classof[C] * ne + econj[E, symof[C]]`` (byte
``i >> 2``, bits ``2 (i & 3)``): ``1 .. 3`` give ``base + code``; ``0`` ("at most the base")
reads the coarser one-byte table at ``classof[C] * nf + fconj[eproj[E], symof[C]]``.

The three axes are read in turn until one cuts the child off; when none does, the "three
axes" rule of nxopt adds one where all three agree: the last move of an optimal solution
turns a face of some axis, and the cube one move before the goal lies in that axis's subgroup
(which holds every move of its two faces), so that axis's coset distance is at most the
distance less one; hence the distance is at least ``min_k h_k + 1`` (lower bounds ``h_k``
included), for every cube but the solved one (a coset value of 0 on some axis skips the rule).
The inverse cube (kept whole, as :mod:`solvers._ida_cube_coset` does) gives three more values
and the same rule (its solutions are the cube's, reversed and inverted); ``probe`` ``1``
(near) reads them only for children the forward values leave exactly at the bound, ``2`` for
every child kept. The bound is admissible; it is not consistent.

This module's search expands the position (``sides=forward``); with ``sides=both`` the spec's
family is ``cube_two_sided`` (:mod:`solvers._ida_cube_two_sided`), which expands, at each node,
the position or its inverse, whichever the same values leave fewer moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from heuristics.pdb_coset_eo import CosetEOTables
from puzzles.base import Puzzle
from solvers._ida_cube import CubeFamilySearch, _allowed, search_with, warm_with
from solvers._ida_engine import EXP, GEN, ITER_DONE, NEXT, PAUSED, SOLVED

_INF = 1 << 30
_D, _BOUND, _FRESH, _ROOT = 0, 1, 2, 3
#: per node: cp, tw, eA, eB, then C_k, E_k for the three axes
_W = 10
#: per node's inverse: cp (8), co (8), ep (12), eo (12)
_IW = 40


@njit(cache=True, inline="always")
def _value(c: int, e: int, ne: int, classof: np.ndarray, symof: np.ndarray, econj: np.ndarray,
           table: np.ndarray, base: int, nf: int, fconj: np.ndarray, eproj: np.ndarray,
           ftab: np.ndarray) -> int:
    cls = classof[c]
    s = symof[c]
    i = cls * ne + econj[e, s]
    v = (table[i >> 2] >> ((i & 3) << 1)) & 3
    if v > 0:
        return base + v
    return ftab[cls * nf + fconj[eproj[e], s]]


@njit(cache=True, inline="always")
def _inv_child(ist: np.ndarray, ikids: np.ndarray, d: int, a: int, imc: np.ndarray,
               ime: np.ndarray) -> None:
    """``ikids[d, a] = m_a^-1 * ist[d]``: the inverse of the child ``s * m_a``."""
    for i in range(8):
        c = ist[d, i]
        ikids[d, a, i] = imc[a, c, 0]
        ikids[d, a, 8 + i] = (imc[a, c, 1] + ist[d, 8 + i]) % 3
    for i in range(12):
        c = ist[d, 16 + i]
        ikids[d, a, 16 + i] = ime[a, c, 0]
        ikids[d, a, 28 + i] = ime[a, c, 1] ^ ist[d, 28 + i]


@njit(cache=True, inline="always")
def _inv_coords(u: np.ndarray, d: int, a: int, k: int, cpos: np.ndarray, cax: np.ndarray,
                epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray,
                cset: bool, emode: int) -> tuple[int, int]:
    """The raw coset coordinates of the inverse ``u[d, a]`` seen along axis ``k``."""
    sc = 0
    for i in range(8):
        p = cpos[k, i]
        sc += cax[k, i, u[d, a, p], u[d, a, 8 + p]]
    if cset:
        cc = rank8[sc >> 16]
    else:
        cc = rank8[sc >> 16] * 2187 + (sc & 0xFFFF)
    se = 0
    for i in range(12):
        p = epos[k, i]
        se += eax[k, i, u[d, a, 16 + p], u[d, a, 28 + p]]
    return cc, edge_value(se, emode, rank12)


@njit(cache=True, inline="always")
def edge_value(se: int, emode: int, rank12: np.ndarray) -> int:
    """The raw edge coordinate of an edge part from the sum ``se`` of its ``eax`` shares: the
    flips at bits ``0 .. 11`` (bit ``i``: the flip at position ``i``; for ``emode`` 0 only slice
    positions', for 3 all but the twelfth), the slice positions' mask at bits ``12 .. 23``, and
    for the U-D layer family (4: ``eo2ep2``, 5: ``ep2``, 6: ``eo2``) the slice edge at each
    slice position ``i`` (``0 .. 3``) at bits ``24 + 2 i``."""
    emask = (se >> 12) & 4095
    if emode == 3:  # every flip but the twelfth
        return rank12[emask] * 2048 + (se & 2047)
    if emode == 0:  # the slice positions' flips, lowest first
        fl = 0
        j = 0
        for i in range(12):
            fl |= ((se >> i) & 1) << j
            j += (emask >> i) & 1
        return rank12[emask] * 16 + fl
    if emode == 1:
        return rank12[emask]
    if emode >= 4:  # the slice edges' order (lexicographic rank) and the other positions' flips
        fl = 0
        j = 0
        key = 0
        for i in range(12):
            if (emask >> i) & 1:
                key = key * 4 + ((se >> (24 + 2 * i)) & 3)
            else:
                fl |= ((se >> i) & 1) << j
                j += 1
        d0, d1, d2, d3 = key >> 6, (key >> 4) & 3, (key >> 2) & 3, key & 3
        order = ((d0 > d1) + (d0 > d2) + (d0 > d3)) * 6 + ((d1 > d2) + (d1 > d3)) * 2 + (d2 > d3)
        if emode == 4:
            return (rank12[emask] * 24 + order) * 256 + fl
        if emode == 5:
            return rank12[emask] * 24 + order
        return rank12[emask] * 256 + fl
    return 0


@njit(cache=True, inline="always")
def _rule(h: int, vmin: int) -> int:
    """nxopt's rule: a non-solved cube is at least one more than its least axis value."""
    if vmin >= 1 and vmin + 1 > h:
        return vmin + 1
    return h


@njit(cache=True)
def _expand(d: int, bound: int, path: np.ndarray, st: np.ndarray, kids: np.ndarray,
            fval: np.ndarray, ist: np.ndarray, ikids: np.ndarray, face: np.ndarray,
            cw: np.ndarray, qtm: bool, cpm: np.ndarray, twm: np.ndarray, em: np.ndarray,
            cmove: np.ndarray, emove: np.ndarray, classof: np.ndarray, symof: np.ndarray,
            econj: np.ndarray, table: np.ndarray, amap: np.ndarray, ne: int, base: int,
            nf: int, fconj: np.ndarray, eproj: np.ndarray, ftab: np.ndarray, probe: int,
            imc: np.ndarray, ime: np.ndarray, cpos: np.ndarray, cax: np.ndarray,
            epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray,
            cset: bool, emode: int) -> tuple[int, int]:
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
        h = 0
        vmin = _INF
        cut = False
        for k in range(3):
            b = amap[k, a]
            c = cmove[st[d, 4 + 2 * k], b]
            e = emove[st[d, 5 + 2 * k], b]
            kids[d, a, 4 + 2 * k] = c
            kids[d, a, 5 + 2 * k] = e
            v = _value(c, e, ne, classof, symof, econj, table, base, nf, fconj, eproj, ftab)
            if v < vmin:
                vmin = v
            if v > h:
                h = v
                if g + h > bound:
                    cut = True
                    break
        if not cut:
            h = _rule(h, vmin)
            cut = g + h > bound
        if not cut and probe > 0:
            _inv_child(ist, ikids, d, a, imc, ime)
            if probe == 2 or g + h == bound:
                vmin = _INF
                hi = 0
                for k in range(3):
                    c, e = _inv_coords(ikids, d, a, k, cpos, cax, epos, eax, rank8, rank12,
                                       cset, emode)
                    v = _value(c, e, ne, classof, symof, econj, table, base, nf, fconj, eproj,
                               ftab)
                    if v < vmin:
                        vmin = v
                    if v > hi:
                        hi = v
                    if v > h:
                        h = v
                        if g + h > bound:
                            cut = True
                            break
                if not cut:
                    h = max(h, _rule(hi, vmin))
                    cut = g + h > bound
        f = g + h
        fval[d, a] = f
        if cut:
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


@njit(cache=True, nogil=True)
def _run(ctl: np.ndarray, cur: np.ndarray, path: np.ndarray, nxt: np.ndarray, st: np.ndarray,
         kids: np.ndarray, fval: np.ndarray, ist: np.ndarray, ikids: np.ndarray, budget: int,
         face: np.ndarray, cw: np.ndarray, qtm: bool, goal_a: int, goal_b: int, cpm: np.ndarray,
         twm: np.ndarray, em: np.ndarray, cmove: np.ndarray, emove: np.ndarray,
         classof: np.ndarray, symof: np.ndarray, econj: np.ndarray, table: np.ndarray,
         amap: np.ndarray, ne: int, base: int, nf: int, fconj: np.ndarray, eproj: np.ndarray,
         ftab: np.ndarray, probe: int, imc: np.ndarray, ime: np.ndarray, cpos: np.ndarray,
         cax: np.ndarray, epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray,
         rank12: np.ndarray, cset: bool, emode: int) -> int:
    """Resume the depth-first iteration stored in the arrays (as ``solvers._ida_cube._run``)."""
    num_moves = cpm.shape[1]
    d = cur[_D]
    bound = cur[_BOUND]
    root = cur[_ROOT]
    nextb = ctl[NEXT]
    gen = ctl[GEN]
    exp = ctl[EXP]
    stop = gen + budget
    if cur[_FRESH]:
        cur[_FRESH] = 0
        n, nb = _expand(root, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cpm, twm,
                        em, cmove, emove, classof, symof, econj, table, amap, ne, base, nf,
                        fconj, eproj, ftab, probe, imc, ime, cpos, cax, epos, eax, rank8, rank12,
                        cset, emode)
        gen += n
        if nb < nextb:
            nextb = nb
    status = ITER_DONE
    while d >= root:
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
        if probe > 0:
            for j in range(_IW):
                ist[d + 1, j] = ikids[d, a, j]
        d += 1
        nxt[d] = 0
        exp += 1
        n, nb = _expand(d, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cpm, twm,
                        em, cmove, emove, classof, symof, econj, table, amap, ne, base, nf,
                        fconj, eproj, ftab, probe, imc, ime, cpos, cax, epos, eax, rank8, rank12,
                        cset, emode)
        gen += n
        if nb < nextb:
            nextb = nb
    cur[_D] = d
    ctl[NEXT] = nextb
    ctl[GEN] = gen
    ctl[EXP] = exp
    return status


@njit(cache=True)
def _node_value(st: np.ndarray, ist: np.ndarray, ne: int, classof: np.ndarray,
                symof: np.ndarray, econj: np.ndarray, table: np.ndarray, base: int, nf: int,
                fconj: np.ndarray, eproj: np.ndarray, ftab: np.ndarray, probe: int,
                cpos: np.ndarray, cax: np.ndarray, epos: np.ndarray, eax: np.ndarray,
                rank8: np.ndarray, rank12: np.ndarray, cset: bool, emode: int) -> int:
    """The heuristic of the node ``st (_W,)`` with inverse ``ist (1, 1, _IW)`` (a root's value:
    the inverse is read in either probe mode)."""
    h = 0
    vmin = _INF
    for k in range(3):
        v = _value(st[4 + 2 * k], st[5 + 2 * k], ne, classof, symof, econj, table, base, nf,
                   fconj, eproj, ftab)
        vmin = min(vmin, v)
        h = max(h, v)
    h = _rule(h, vmin)
    if probe > 0:
        vmin = _INF
        hi = 0
        for k in range(3):
            c, e = _inv_coords(ist, 0, 0, k, cpos, cax, epos, eax, rank8, rank12, cset, emode)
            v = _value(c, e, ne, classof, symof, econj, table, base, nf, fconj, eproj, ftab)
            vmin = min(vmin, v)
            hi = max(hi, v)
        h = max(h, _rule(hi, vmin))
    return h


#: the kernel's arguments after ``budget``, as :func:`_kernel_args` returns them
ARG_NAMES = ("face", "cw", "qtm", "goal_a", "goal_b", "cpm", "twm", "em", "cmove", "emove",
             "classof", "symof", "econj", "table", "amap", "ne", "base", "nf", "fconj", "eproj",
             "ftab", "probe", "imc", "ime", "cpos", "cax", "epos", "eax", "rank8", "rank12",
             "cset", "emode")
_NODE_ARGS = tuple(ARG_NAMES.index(n) for n in (
    "ne", "classof", "symof", "econj", "table", "base", "nf", "fconj", "eproj", "ftab", "probe",
    "cpos", "cax", "epos", "eax", "rank8", "rank12", "cset", "emode"))


def _kernel_args(puzzle: Puzzle, spec: IdaSpec) -> tuple[Any, ...]:
    """The kernel's arguments after ``budget`` (``ARG_NAMES``), read by name from
    ``spec.tables`` (a :class:`heuristics.pdb_coset_eo.CosetEOTables`) and the puzzle's moves
    in ``spec.params``."""
    if type(spec.tables) is not CosetEOTables:
        raise TypeError(f"cube coset-eo IDA*: the {spec.kind} search reads CosetEOTables, "
                        f"got {type(spec.tables).__name__}")
    if spec.tables.two_sided:
        raise ValueError("cube coset-eo IDA*: a sides=both spec is searched by "
                         "solvers._ida_cube_two_sided")
    p = spec.params
    face = np.asarray(p["faces"], dtype=np.int64)
    cw = np.asarray(p["clockwise"], dtype=np.bool_)
    if face.shape[0] != puzzle.num_actions:
        raise ValueError(f"cube coset-eo IDA* spec has {face.shape[0]} actions, {puzzle.name} "
                         f"has {puzzle.num_actions}")
    named = {**spec.tables._asdict(), "face": face, "cw": cw, "qtm": bool(p["metric"] == "qtm")}
    return tuple(named[n] for n in ARG_NAMES)


def coordinates(puzzle: Puzzle, spec: IdaSpec, states: np.ndarray) -> np.ndarray:
    """``(B, L)`` facelet states -> ``(B, 10)`` int64 node coordinates."""
    from pdb_builders import cube_coset_eo as ce
    from pdb_builders import cube_symmetry as S
    from pdb_builders import cube_tables as K
    from pdb_builders import korf_cube as kc

    p = spec.params
    parts = puzzle.to_cubies(np.atleast_2d(states))  # type: ignore[attr-defined]
    cubies = tuple(np.ascontiguousarray(x, dtype=np.int64) for x in parts)
    out = np.zeros((cubies[0].shape[0], _W), dtype=np.int64)
    out[:, :2] = K.corner_coords(cubies[0], cubies[1], kc.CUBE3_RELABEL)
    for col, edges in ((2, kc.KORF_EDGES[0]), (3, kc.KORF_EDGES[1])):
        out[:, col] = K.edge_coords(cubies[2], cubies[3], np.asarray(edges, dtype=np.int64))
    sp = ce.coset_space(p["metric"], p["corner_part"], p["edge_part"])
    for k, r in enumerate(S.axis_rotations()):
        out[:, 4 + 2 * k], out[:, 5 + 2 * k] = ce.project(sp, S.conjugate(cubies, r))  # type: ignore[arg-type]
    return out


class CosetEOSearch(CubeFamilySearch):
    """One IDA* search under ``pdb-coset-eo``."""

    def __init__(self, puzzle: Puzzle, spec: IdaSpec, start: np.ndarray) -> None:
        from solvers._ida_cube_coset import inverse_cubies

        self.args = _kernel_args(puzzle, spec)
        root = coordinates(puzzle, spec, start)[0]
        iroot = inverse_cubies(puzzle, start)[0]
        self.h_root = int(_node_value(root, iroot.reshape(1, 1, _IW),
                                      *(self.args[i] for i in _NODE_ARGS)))
        self.expand_args = self.args[:3] + self.args[5:]
        self._setup(puzzle, start, root, iroot, spec.tables.goal_a, spec.tables.goal_b,
                    spec.params["metric"] == "qtm")

    def run(self, budget: int) -> int:
        return int(_run(self.ctl, self.cur, self.path, self.nxt, self.st, self.kids, self.fval,
                        self.ist, self.ikids, budget, *self.args))

    def _expand_at(self, d: int, bound: int) -> tuple[int, int]:
        return _expand(d, bound, self.path, self.st, self.kids, self.fval,  # type: ignore[no-any-return]
                       self.ist, self.ikids, *self.expand_args)


def search(puzzle: Puzzle, spec: IdaSpec, start: np.ndarray, max_nodes: int | None,
           deadline_s: float | None, threads: int = 1,
           order: str = "actions") -> dict[str, Any]:
    """IDA* from ``start (L,)``; see :mod:`solvers.ida` for the contract. ``threads`` > 1
    searches each iteration's subtrees in parallel (:mod:`solvers._ida_cube_parallel`);
    ``order`` as :func:`solvers._ida_cube.search_with`."""
    return search_with(CosetEOSearch(puzzle, spec, start), max_nodes, deadline_s, threads, order)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel and map the tables' pages (:func:`solvers._ida_cube.warm_with`)."""
    warm_with(puzzle, spec, search)
