"""IDA* kernel for the 3x3x3 under the three-axis coset heuristic (``pdb-coset``).

A node holds Korf's full-state coordinates (corner position rank, twist, the two 6-edge
indices: ``pdb_builders.korf_cube``), which decide the goal, and per axis ``k`` the raw coset
coordinates ``C_k, E_k`` of the cube seen along that axis (:mod:`pdb_builders.cube_coset`). A
child costs move-table lookups only: along axis ``k`` the move ``a`` acts as the move
``amap[k, a]`` (the move conjugated by the axis rotation), and its value is the table entry
``classof[C] * ne + econj[E, symof[C]]``, the max over the three axes. Move pruning, the
quarter-turn parity rule, the resumable search and the node counts are those of the Korf cube
kernel (:mod:`solvers._ida_cube`).

Options of the heuristic (``params``):

* ``corner_pdb``: Korf's corner table (or a projection of it) joins the max, read first from
  the node's corner coordinates;
* ``probe`` (``0`` off, ``1`` near, ``2`` on): the three-axis values of the node's inverse
  join the max (the inverse is at the same distance). A node also keeps its inverse ``t`` whole
  (``ist``: ``cp, co, ep, eo``, 40 entries): a move premultiplies it (``m^-1 t``), and its coset
  coordinates along each axis are computed from its cubies
  (:func:`pdb_builders.cube_coset.inverse_tables`). The inverse is updated for every child the
  forward lookups keep and read, axis by axis until one cuts the child off, for all of them
  (``on``) or only for those the forward value leaves exactly at the bound (``near``: one more
  would cut them off). The max with the inverse is admissible, not always consistent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from heuristics.cube_lookup import corner_value
from heuristics.pdb_coset import CosetTables
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
           table: np.ndarray) -> int:
    return table[classof[c] * ne + econj[e, symof[c]]]


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
def _inv_value(u: np.ndarray, d: int, a: int, k: int, cpos: np.ndarray, cax: np.ndarray,
               epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray,
               cset: bool, emode: int, ne: int, classof: np.ndarray, symof: np.ndarray,
               econj: np.ndarray, table: np.ndarray) -> int:
    """The table value of the inverse ``u[d, a]`` seen along axis ``k`` (``r^-1 u r``)."""
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
    emask = se >> 12
    if emode == 0:
        # the flips of the slice positions, lowest first
        fl = 0
        j = 0
        for i in range(12):
            fl |= ((se >> i) & 1) << j
            j += (emask >> i) & 1
        e = rank12[emask] * 16 + fl
    elif emode == 1:
        e = rank12[emask]
    else:
        e = 0
    return _value(cc, e, ne, classof, symof, econj, table)


@njit(cache=True)
def _expand(d: int, bound: int, path: np.ndarray, st: np.ndarray, kids: np.ndarray,
            fval: np.ndarray, ist: np.ndarray, ikids: np.ndarray, face: np.ndarray,
            cw: np.ndarray, qtm: bool, cpm: np.ndarray, twm: np.ndarray, em: np.ndarray,
            cmove: np.ndarray, emove: np.ndarray, classof: np.ndarray, symof: np.ndarray,
            econj: np.ndarray, table: np.ndarray, amap: np.ndarray, ne: int, use_corner: bool,
            ccpart: int, nt: int, ctab: np.ndarray, probe: int, imc: np.ndarray,
            ime: np.ndarray, cpos: np.ndarray, cax: np.ndarray, epos: np.ndarray,
            eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray, cset: bool,
            emode: int) -> tuple[int, int]:
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
        # the lookups in turn, stopping at the first that cuts the child off: its f is then a
        # lower bound above ``bound`` (as the Korf kernel's passes), and the child is never
        # expanded, so its other coordinates are not needed
        h = 0
        cut = False
        if use_corner:
            cp = cpm[st[d, 0], a]
            tw = twm[st[d, 1], a]
            kids[d, a, 0] = cp
            kids[d, a, 1] = tw
            h = corner_value(cp, tw, ccpart, nt, ctab)
            cut = g + h > bound
        if not cut:
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
                        cut = True
                        break
        if not cut and probe > 0:
            _inv_child(ist, ikids, d, a, imc, ime)
            if probe == 2 or g + h == bound:
                for k in range(3):
                    v = _inv_value(ikids, d, a, k, cpos, cax, epos, eax, rank8, rank12, cset,
                                   emode, ne, classof, symof, econj, table)
                    if v > h:
                        h = v
                        if g + h > bound:
                            cut = True
                            break
        f = g + h
        fval[d, a] = f
        if cut:
            if f < nextb:
                nextb = f
            continue
        if not use_corner:
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
         amap: np.ndarray, ne: int, use_corner: bool, ccpart: int, nt: int, ctab: np.ndarray,
         probe: int, imc: np.ndarray, ime: np.ndarray, cpos: np.ndarray, cax: np.ndarray,
         epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray, cset: bool,
         emode: int) -> int:
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
        n, nb = _expand(root, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cpm, twm, em,
                        cmove, emove, classof, symof, econj, table, amap, ne, use_corner, ccpart,
                        nt, ctab, probe, imc, ime, cpos, cax, epos, eax, rank8, rank12, cset, emode)
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
        n, nb = _expand(d, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cpm, twm, em,
                        cmove, emove, classof, symof, econj, table, amap, ne, use_corner, ccpart,
                        nt, ctab, probe, imc, ime, cpos, cax, epos, eax, rank8, rank12, cset, emode)
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
                symof: np.ndarray, econj: np.ndarray, table: np.ndarray, use_corner: bool,
                ccpart: int, nt: int, ctab: np.ndarray, probe: int, cpos: np.ndarray,
                cax: np.ndarray, epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray,
                rank12: np.ndarray, cset: bool,
                emode: int) -> int:
    """The heuristic of the node ``st (_W,)`` with inverse ``ist (1, 1, _IW)``: every lookup
    the options name (a root's value: the inverse is read in either probe mode)."""
    h = 0
    if use_corner:
        h = corner_value(st[0], st[1], ccpart, nt, ctab)
    for k in range(3):
        v = _value(st[4 + 2 * k], st[5 + 2 * k], ne, classof, symof, econj, table)
        if v > h:
            h = v
    if probe > 0:
        for k in range(3):
            v = _inv_value(ist, 0, 0, k, cpos, cax, epos, eax, rank8, rank12, cset, emode, ne,
                           classof, symof, econj, table)
            if v > h:
                h = v
    return h


def _kernel_args(puzzle: Puzzle, spec: IdaSpec) -> tuple[Any, ...]:
    """The kernel's arguments after ``budget`` (``ARG_NAMES``), read by name from
    ``spec.tables`` (a :class:`heuristics.pdb_coset.CosetTables`) and the puzzle's moves in
    ``spec.params``."""
    if type(spec.tables) is not CosetTables:
        raise TypeError(f"cube coset IDA*: the {spec.kind} search reads CosetTables, got "
                        f"{type(spec.tables).__name__}")
    p = spec.params
    face = np.asarray(p["faces"], dtype=np.int64)
    cw = np.asarray(p["clockwise"], dtype=np.bool_)
    if face.shape[0] != puzzle.num_actions:
        raise ValueError(f"cube coset IDA* spec has {face.shape[0]} actions, {puzzle.name} has "
                         f"{puzzle.num_actions}")
    named = {**spec.tables._asdict(), "face": face, "cw": cw, "qtm": bool(p["metric"] == "qtm")}
    return tuple(named[n] for n in ARG_NAMES)


#: the kernel's arguments after ``budget``, as :func:`_kernel_args` returns them
ARG_NAMES = ("face", "cw", "qtm", "goal_a", "goal_b", "cpm", "twm", "em", "cmove", "emove",
             "classof", "symof", "econj", "table", "amap", "ne", "use_corner", "ccpart", "nt",
             "ctab", "probe", "imc", "ime", "cpos", "cax", "epos", "eax", "rank8", "rank12",
             "cset", "emode")
#: positions among them of what :func:`_node_value` reads
_NODE_ARGS = tuple(ARG_NAMES.index(n) for n in (
    "ne", "classof", "symof", "econj", "table", "use_corner", "ccpart", "nt", "ctab", "probe",
    "cpos", "cax", "epos", "eax", "rank8", "rank12", "cset", "emode"))


def coordinates(puzzle: Puzzle, spec: IdaSpec, states: np.ndarray) -> np.ndarray:
    """``(B, L)`` facelet states -> ``(B, 10)`` int64 node coordinates."""
    from pdb_builders import cube_coset as cc
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
    sp = cc.coset_space(p["metric"], p["corner_part"], p["edge_part"])
    for k, r in enumerate(S.axis_rotations()):
        out[:, 4 + 2 * k], out[:, 5 + 2 * k] = sp.project(S.conjugate(cubies, r))  # type: ignore[arg-type]
    return out


def inverse_cubies(puzzle: Puzzle, states: np.ndarray) -> np.ndarray:
    """``(B, L)`` facelet states -> ``(B, 40)`` int64: each state's inverse ``cp, co, ep, eo``."""
    from pdb_builders import cube_symmetry as S

    parts = puzzle.to_cubies(np.atleast_2d(states))  # type: ignore[attr-defined]
    inv = S.inverse(tuple(np.asarray(x, dtype=np.int64) for x in parts))  # type: ignore[arg-type]
    return np.ascontiguousarray(np.concatenate(inv, axis=1), dtype=np.int64)


class CosetSearch(CubeFamilySearch):
    """One IDA* search under ``pdb-coset``."""

    def __init__(self, puzzle: Puzzle, spec: IdaSpec, start: np.ndarray) -> None:
        self.args = _kernel_args(puzzle, spec)
        root = coordinates(puzzle, spec, start)[0]
        iroot = inverse_cubies(puzzle, start)[0]
        self.h_root = int(_node_value(root, iroot.reshape(1, 1, _IW),
                                      *(self.args[i] for i in _NODE_ARGS)))
        # the expansion's arguments: the kernel's without the goal's edge coordinates
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
           deadline_s: float | None, threads: int = 1, order: str = "actions") -> dict[str, Any]:
    """IDA* from ``start (L,)``; see :mod:`solvers.ida` for the contract. ``threads`` > 1
    searches each iteration's subtrees in parallel (:mod:`solvers._ida_cube_parallel`), in
    ``order`` (:func:`solvers._ida_cube.search_with`)."""
    return search_with(CosetSearch(puzzle, spec, start), max_nodes, deadline_s, threads, order)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel and map the tables' pages (:func:`solvers._ida_cube.warm_with`)."""
    warm_with(puzzle, spec, search)
