"""Two-sided IDA* kernel under ``pdb-coset-eo`` (``sides=both``, the IDA* family
``cube_two_sided``; ``sides=forward`` is :mod:`solvers._ida_cube_coset_eo`): at every node the search
expands the position or its inverse, whichever the coset table leaves fewer moves (nxopt's
search, ``nxopt.md`` of Rokicki's cube20src, section "Search").

Convention: a solution ``t`` of a node ``p`` satisfies ``p t = 1`` (moves applied on the right).
The table value ``v_A(p)`` of axis ``A`` (:mod:`solvers._ida_cube_coset_eo`) is a lower bound of
the coset distance ``min{|c| : p c in H_A}``, where ``H_A`` holds every move of ``A``'s two
faces. Let ``r = bound - g`` be a node's remaining budget.

* Ends: if ``v_A(p) >= r``, no solution of length ``r`` ends with a move ``m`` of axis ``A``:
  ``t = t' m`` gives ``p t' = m^-1 in H_A``, so ``v_A(p) <= |t'| = r - 1``.
* Starts: if ``v_A(p^-1) >= r``, no solution of length ``r`` starts with a move of axis ``A``
  (``t^-1`` solves ``p^-1`` and ends with the inverse of ``t``'s first move).

Only raw values carry this (a table code, or the fallback table's value: lower bounds of the
coset distance); a value raised by the three-axis rule or by the quarter-turn parity does not.

A node keeps ``p`` and ``p^-1`` whole (cubies, 40 integers each), each side's coset coordinates
along the three axes and its six raw values. Expanding ``p`` (the front) applies a move ``m`` on
the right of ``p`` and allows only axes with ``v_A(p^-1) < r``; expanding ``p^-1`` (the back)
applies ``m`` on the right of ``p^-1`` (the child is ``m^-1 p``: ``m^-1`` becomes the last move
of ``p``'s solution) and allows only axes with ``v_A(p) < r``. Each node expands the side with
fewer allowed moves (front on a tie); a node whose three axes are blocked on one side has all
three of that side's values at least ``r`` and is cut by the three-axis rule (``r >= 1``). A
solution is the front moves in order, then the back moves in reverse order, each inverted.

The side a move is applied to follows by the coset move tables; the other side is relabelled
(``m^-1 q``) and its coordinates read from its cubies. That side's coset of the move's axis does
not change (``H_A m^-1 q = H_A q``), so its value is the parent's and is not read: the node lacks
that one coordinate, which is computed from the cubies if the node is later expanded on that
side. The six values are read lazily, the inherited one first, then the side the move was
applied to, then the relabelled side, until the child is cut off.

Move pruning per side. The path records ``(side, move)`` per depth (its slot ``side * A +
move``). Front moves follow :func:`solvers._ida_cube._allowed`'s rules against the previous
front moves. Back moves are ``p``'s solution read from its end, inverted, so the back side
applies the same rules in the solution's order: a back move ``b`` after the back move ``lb``
stands for the solution's ``b^-1`` just before ``lb^-1``; opposite faces are forbidden as
``face(b) == face(lb) + 3`` (the front rule's ``face + 3 == last face`` with the order reversed);
in the quarter-turn metric a same-face pair is allowed only when both back moves are
counter-clockwise (their inverses clockwise), and never a third turn of a face.

Completeness: let ``s`` be a canonical optimal solution (one the one-sided rules allow), found in
the iteration whose bound is its length. At a node reached by taking ``i`` moves from its front
and ``j`` from its back (so the node's remaining solution ``t`` is the middle of ``s``, of length
``r``), the front's next move is ``t``'s first and the back's is ``t``'s last, inverted. Each is
allowed by the table (``t`` is a solution of length ``r``), and by the move pruning: the rules
are local (a pair or three moves in a row), the front's previous moves are the moves of ``s``
just before ``t`` and the back's the moves just after, and ``s`` satisfies the rules everywhere.
So whichever side a node expands, the child on ``s`` is generated, and the heuristic (admissible)
keeps it. The junction between the two sides is not checked: a solution may join a front move
and a back move that the rules would forbid in a row (complete, a little less pruning).

Cost bounds: a blocked move ``m`` of axis ``A`` at depth ``d`` leads to no solution shorter than
``d + v + 1`` (``v`` the blocking value, at least ``r``); that counts as a cut-off ``f`` for the
next bound, so an iteration never skips the bound of a solution through a blocked move.

Counts: ``nodes_generated`` counts the children of the side expanded after both prunings, the
ones the bound then cuts off included; ``nodes_expanded`` the nodes whose children were generated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from heuristics.pdb_coset_eo import CosetEOTables
from puzzles.base import Puzzle
from solvers._ida_cube import CubeFamilySearch, search_with, warm_with
from solvers._ida_cube_coset_eo import _rule, _value, edge_value
from solvers._ida_engine import EXP, GEN, ITER_DONE, NEXT, PAUSED, SOLVED

_INF = 1 << 30
_D, _BOUND, _FRESH, _ROOT = 0, 1, 2, 3
#: a node's row: per side ``s`` (0 the position, 1 its inverse) the coset coordinates ``C_k,
#: E_k`` at ``6 s + 2 k``, the raw values at ``_VAL + 3 s + k``; whether it is the goal; the
#: side whose coordinate of one axis is not computed (-1: none) and that axis
_VAL, _GOAL, _MSIDE, _MAXIS = 12, 18, 19, 20
_W = 21
#: a node's cubies: the position's ``cp, co, ep, eo`` (40), then its inverse's
_IW = 80


@njit(cache=True, inline="always")
def _coords(u: np.ndarray, off: int, k: int, cpos: np.ndarray, cax: np.ndarray,
            epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray,
            cset: bool, emode: int) -> tuple[int, int]:
    """The raw coset coordinates along axis ``k`` of the cube ``u[off:off + 40]`` (as
    :func:`solvers._ida_cube_coset_eo._inv_coords`)."""
    sc = 0
    for i in range(8):
        p = cpos[k, i]
        sc += cax[k, i, u[off + p], u[off + 8 + p]]
    if cset:
        cc = rank8[sc >> 16]
    else:
        cc = rank8[sc >> 16] * 2187 + (sc & 0xFFFF)
    se = 0
    for i in range(12):
        p = epos[k, i]
        se += eax[k, i, u[off + 16 + p], u[off + 28 + p]]
    return cc, edge_value(se, emode, rank12)


@njit(cache=True, inline="always")
def _relabel(src: np.ndarray, dst: np.ndarray, off: int, a: int, imc: np.ndarray,
             ime: np.ndarray) -> None:
    """``dst[off:off + 40] = m_a^-1 * src[off:off + 40]`` (cubies relabelled)."""
    for i in range(8):
        c = src[off + i]
        dst[off + i] = imc[a, c, 0]
        dst[off + 8 + i] = (imc[a, c, 1] + src[off + 8 + i]) % 3
    for i in range(12):
        c = src[off + 16 + i]
        dst[off + 16 + i] = ime[a, c, 0]
        dst[off + 28 + i] = ime[a, c, 1] ^ src[off + 28 + i]


@njit(cache=True, inline="always")
def _right(src: np.ndarray, dst: np.ndarray, off: int, a: int, rmc: np.ndarray,
           rme: np.ndarray) -> None:
    """``dst[off:off + 40] = src[off:off + 40] * m_a`` (positions moved)."""
    for i in range(8):
        j = rmc[a, i, 0]
        dst[off + i] = src[off + j]
        dst[off + 8 + i] = (src[off + 8 + j] + rmc[a, i, 1]) % 3
    for i in range(12):
        j = rme[a, i, 0]
        dst[off + 16 + i] = src[off + 16 + j]
        dst[off + 28 + i] = src[off + 28 + j] ^ rme[a, i, 1]


@njit(cache=True, inline="always")
def _solved(u: np.ndarray, off: int) -> bool:
    for i in range(8):
        if u[off + i] != i or u[off + 8 + i] != 0:
            return False
    for i in range(12):
        if u[off + 16 + i] != i or u[off + 28 + i] != 0:
            return False
    return True


@njit(cache=True, inline="always")
def _last_two(path: np.ndarray, d: int, side: int, na: int) -> tuple[int, int]:
    """The last and second last moves of ``side`` on ``path[:d]`` (-1: none)."""
    l1 = -1
    for j in range(d - 1, -1, -1):
        s = path[j]
        if (s >= na) == (side == 1):
            if l1 < 0:
                l1 = s - side * na
            else:
                return l1, s - side * na
    return l1, -1


@njit(cache=True, inline="always")
def _side_ok(a: int, side: int, l1: int, l2: int, face: np.ndarray, cw: np.ndarray,
             qtm: bool) -> bool:
    """Move pruning of one side against its own previous moves ``l1``, ``l2`` (-1: none)."""
    if l1 < 0:
        return True
    f = face[a]
    lf = face[l1]
    if f == lf:
        if not qtm:
            return False
        if side == 0:
            if not (cw[a] and cw[l1]):
                return False
        elif cw[a] or cw[l1]:
            return False
        return not (l2 >= 0 and face[l2] == f)
    if side == 0:
        return f + 3 != lf
    return f != lf + 3


@njit(cache=True)
def _expand(d: int, bound: int, path: np.ndarray, st: np.ndarray, kids: np.ndarray,
            fval: np.ndarray, ist: np.ndarray, ikids: np.ndarray, face: np.ndarray,
            cw: np.ndarray, qtm: bool, cmove: np.ndarray, emove: np.ndarray,
            classof: np.ndarray, symof: np.ndarray, econj: np.ndarray, table: np.ndarray,
            amap: np.ndarray, ne: int, base: int, nf: int, fconj: np.ndarray, eproj: np.ndarray,
            ftab: np.ndarray, imc: np.ndarray, ime: np.ndarray, rmc: np.ndarray,
            rme: np.ndarray, maxis: np.ndarray, cpos: np.ndarray, cax: np.ndarray,
            epos: np.ndarray, eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray,
            cset: bool, emode: int) -> tuple[int, int]:
    """Choose the side of the node at depth ``d`` and generate its children there; returns
    ``(children, least f > bound)``. ``kids[d, s]`` and ``fval[d, s]`` are indexed by slot
    ``s = side * A + move`` (the other side's slots ``_INF``)."""
    na = face.shape[0]
    g = d + 1
    r = bound - d
    for s in range(2 * na):
        fval[d, s] = _INF
    # axis k of the front is blocked where v_k(p^-1) >= r, of the back where v_k(p) >= r
    fblock = 0
    bblock = 0
    for k in range(3):
        if st[d, _VAL + 3 + k] >= r:
            fblock |= 1 << k
        if st[d, _VAL + k] >= r:
            bblock |= 1 << k
    f1, f2 = _last_two(path, d, 0, na)
    b1, b2 = _last_two(path, d, 1, na)
    nfront = 0
    nback = 0
    for a in range(na):
        ax = maxis[a]
        if not (fblock >> ax) & 1 and _side_ok(a, 0, f1, f2, face, cw, qtm):
            nfront += 1
        if not (bblock >> ax) & 1 and _side_ok(a, 1, b1, b2, face, cw, qtm):
            nback += 1
    if nfront <= nback:
        side, block, l1, l2 = 0, fblock, f1, f2
    else:
        side, block, l1, l2 = 1, bblock, b1, b2
    o = 1 - side
    so = 6 * side
    oo = 6 * o
    sv = _VAL + 3 * side
    ov = _VAL + 3 * o
    src = ist[d]
    if st[d, _MSIDE] == side:  # the chosen side lacks one axis's coordinate
        k = st[d, _MAXIS]
        c, e = _coords(src, 40 * side, k, cpos, cax, epos, eax, rank8, rank12, cset, emode)
        st[d, so + 2 * k] = c
        st[d, so + 2 * k + 1] = e
        st[d, _MSIDE] = -1
    generated = 0
    nextb = _INF
    for a in range(na):
        if not _side_ok(a, side, l1, l2, face, cw, qtm):
            continue
        ax = maxis[a]
        vin = st[d, ov + ax]  # the other side's value on the move's axis: its coset is kept
        if (block >> ax) & 1:
            # no solution of length r through this move: none shorter than d + vin + 1
            if d + vin + 1 < nextb:
                nextb = d + vin + 1
            continue
        generated += 1
        slot = side * na + a
        kid = kids[d, slot]
        h = vin
        cut = g + h > bound
        if not cut:
            vmin = _INF
            for k in range(3):
                b = amap[k, a]
                c = cmove[st[d, so + 2 * k], b]
                e = emove[st[d, so + 2 * k + 1], b]
                kid[so + 2 * k] = c
                kid[so + 2 * k + 1] = e
                v = _value(c, e, ne, classof, symof, econj, table, base, nf, fconj, eproj, ftab)
                kid[sv + k] = v
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
        if not cut:
            dst = ikids[d, slot]
            _relabel(src, dst, 40 * o, a, imc, ime)
            vmin = vin
            for k in range(3):
                if k == ax:
                    continue
                c, e = _coords(dst, 40 * o, k, cpos, cax, epos, eax, rank8, rank12, cset,
                               emode)
                kid[oo + 2 * k] = c
                kid[oo + 2 * k + 1] = e
                v = _value(c, e, ne, classof, symof, econj, table, base, nf, fconj, eproj, ftab)
                kid[ov + k] = v
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
        f = g + h
        fval[d, slot] = f
        if cut:
            if f < nextb:
                nextb = f
            continue
        kid[ov + ax] = vin
        kid[_MSIDE] = o
        kid[_MAXIS] = ax
        dst = ikids[d, slot]
        _right(src, dst, 40 * side, a, rmc, rme)
        # the goal has every raw value 0 (h == 0); then its cubies decide
        kid[_GOAL] = 1 if h == 0 and _solved(dst, 0) else 0
    return generated, nextb


@njit(cache=True, nogil=True)
def _run(ctl: np.ndarray, cur: np.ndarray, path: np.ndarray, nxt: np.ndarray, st: np.ndarray,
         kids: np.ndarray, fval: np.ndarray, ist: np.ndarray, ikids: np.ndarray, budget: int,
         face: np.ndarray, cw: np.ndarray, qtm: bool, cmove: np.ndarray, emove: np.ndarray,
         classof: np.ndarray, symof: np.ndarray, econj: np.ndarray, table: np.ndarray,
         amap: np.ndarray, ne: int, base: int, nf: int, fconj: np.ndarray, eproj: np.ndarray,
         ftab: np.ndarray, imc: np.ndarray, ime: np.ndarray, rmc: np.ndarray, rme: np.ndarray,
         maxis: np.ndarray, cpos: np.ndarray, cax: np.ndarray, epos: np.ndarray,
         eax: np.ndarray, rank8: np.ndarray, rank12: np.ndarray, cset: bool,
         emode: int) -> int:
    """Resume the depth-first iteration stored in the arrays (as ``solvers._ida_cube._run``;
    ``path`` holds slots, ``side * A + move``)."""
    slots = 2 * face.shape[0]
    d = cur[_D]
    bound = cur[_BOUND]
    root = cur[_ROOT]
    nextb = ctl[NEXT]
    gen = ctl[GEN]
    exp = ctl[EXP]
    stop = gen + budget
    if cur[_FRESH]:
        cur[_FRESH] = 0
        n, nb = _expand(root, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cmove,
                        emove, classof, symof, econj, table, amap, ne, base, nf, fconj, eproj,
                        ftab, imc, ime, rmc, rme, maxis, cpos, cax, epos, eax, rank8, rank12,
                        cset, emode)
        gen += n
        if nb < nextb:
            nextb = nb
    status = ITER_DONE
    while d >= root:
        s = nxt[d]
        if s >= slots:
            d -= 1
            continue
        if fval[d, s] > bound:
            nxt[d] = s + 1
            continue
        if gen >= stop:
            status = PAUSED
            break
        nxt[d] = s + 1
        path[d] = s
        if kids[d, s, _GOAL]:
            d += 1
            status = SOLVED
            break
        if d + 1 >= path.shape[0]:
            continue
        for j in range(_W):
            st[d + 1, j] = kids[d, s, j]
        for j in range(_IW):
            ist[d + 1, j] = ikids[d, s, j]
        d += 1
        nxt[d] = 0
        exp += 1
        n, nb = _expand(d, bound, path, st, kids, fval, ist, ikids, face, cw, qtm, cmove,
                        emove, classof, symof, econj, table, amap, ne, base, nf, fconj, eproj,
                        ftab, imc, ime, rmc, rme, maxis, cpos, cax, epos, eax, rank8, rank12,
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
def _row_values(rows: np.ndarray, ne: int, classof: np.ndarray, symof: np.ndarray,
                econj: np.ndarray, table: np.ndarray, base: int, nf: int, fconj: np.ndarray,
                eproj: np.ndarray, ftab: np.ndarray) -> np.ndarray:
    """Fill the six raw values of each row ``rows (B, _W)`` from its coordinates; returns
    ``(B,)`` the heuristic (the max of both sides with the three-axis rule)."""
    out = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        h = 0
        for side in range(2):
            vmin = _INF
            for k in range(3):
                v = _value(rows[i, 6 * side + 2 * k], rows[i, 6 * side + 2 * k + 1], ne, classof,
                           symof, econj, table, base, nf, fconj, eproj, ftab)
                rows[i, _VAL + 3 * side + k] = v
                vmin = min(vmin, v)
                h = max(h, v)
            h = _rule(h, vmin)
        out[i] = h
    return out


#: the kernel's arguments after ``budget``, as :func:`_kernel_args` returns them
ARG_NAMES = ("face", "cw", "qtm", "cmove", "emove", "classof", "symof", "econj", "table",
             "amap", "ne", "base", "nf", "fconj", "eproj", "ftab", "imc", "ime", "rmc", "rme",
             "maxis", "cpos", "cax", "epos", "eax", "rank8", "rank12", "cset", "emode")
_VALUE_ARGS = ("ne", "classof", "symof", "econj", "table", "base", "nf", "fconj", "eproj",
               "ftab")


def _named(puzzle: Puzzle, spec: IdaSpec) -> dict[str, Any]:
    t = spec.tables
    if type(t) is not CosetEOTables:
        raise TypeError(f"cube two-sided IDA*: the {spec.kind} search reads CosetEOTables, got "
                        f"{type(t).__name__}")
    p = spec.params
    face = np.asarray(p["faces"], dtype=np.int64)
    if face.shape[0] != puzzle.num_actions:
        raise ValueError(f"cube two-sided IDA* spec has {face.shape[0]} actions, {puzzle.name} "
                         f"has {puzzle.num_actions}")
    return {**t._asdict(), "face": face, "cw": np.asarray(p["clockwise"], dtype=np.bool_),
            "qtm": bool(p["metric"] == "qtm")}


def node_rows(puzzle: Puzzle, spec: IdaSpec, states: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(B, L)`` facelet states -> the kernel's rows ``(B, _W)`` (coordinates of both sides,
    their six raw values, the goal flag), cubies ``(B, _IW)`` and heuristic values ``(B,)``."""
    from pdb_builders import cube_coset_eo as ce
    from pdb_builders import cube_symmetry as S

    named = _named(puzzle, spec)
    p = spec.params
    parts = puzzle.to_cubies(np.atleast_2d(states))  # type: ignore[attr-defined]
    cubies = tuple(np.ascontiguousarray(x, dtype=np.int64) for x in parts)
    inverse = S.inverse(cubies)  # type: ignore[arg-type]
    b = cubies[0].shape[0]
    rows = np.zeros((b, _W), dtype=np.int64)
    sp = ce.coset_space(p["metric"], p["corner_part"], p["edge_part"])
    for side, cube in enumerate((cubies, inverse)):
        for k, r in enumerate(S.axis_rotations()):
            c, e = ce.project(sp, S.conjugate(cube, r))  # type: ignore[arg-type]
            rows[:, 6 * side + 2 * k] = c
            rows[:, 6 * side + 2 * k + 1] = e
    h = _row_values(rows, *(named[n] for n in _VALUE_ARGS))
    both = np.ascontiguousarray(np.concatenate([*cubies, *inverse], axis=1), dtype=np.int64)
    ident = np.concatenate([np.arange(8), np.zeros(8, np.int64), np.arange(12),
                            np.zeros(12, np.int64)])
    rows[:, _GOAL] = (both[:, :40] == ident).all(axis=1)
    rows[:, _MSIDE] = -1
    return rows, both, h


def blocked_axes(rows: np.ndarray, remaining: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(B, 3)`` bool each: the axes no solution of length ``remaining (B,)`` of each row's
    position starts with (``v_A(p^-1) >= r``), and those none ends with (``v_A(p) >= r``)."""
    r = np.asarray(remaining)[:, None]
    return rows[:, _VAL + 3:_VAL + 6] >= r, rows[:, _VAL:_VAL + 3] >= r


class TwoSidedSearch(CubeFamilySearch):
    """One two-sided IDA* search under ``pdb-coset-eo`` (``sides=both``)."""

    sides = 2

    def __init__(self, puzzle: Puzzle, spec: IdaSpec, start: np.ndarray) -> None:
        named = _named(puzzle, spec)
        self.args = tuple(named[n] for n in ARG_NAMES)
        rows, cubies, h = node_rows(puzzle, spec, start)
        self.h_root = int(h[0])
        self.inverse = [puzzle.inverse_action(a) for a in range(puzzle.num_actions)]
        self._setup(puzzle, start, rows[0], cubies[0], 0, 0, spec.params["metric"] == "qtm")

    def _is_goal_row(self, row: np.ndarray) -> bool:
        return bool(row[_GOAL])

    def actions(self, slots: list[int]) -> list[int]:
        """The start's solution from a path of slots: the front moves in order, then the back
        moves in reverse order, each inverted."""
        na = self.num_actions
        front = [int(s) for s in slots if s < na]
        back = [self.inverse[s - na] for s in slots if s >= na]
        return front + back[::-1]

    def run(self, budget: int) -> int:
        return int(_run(self.ctl, self.cur, self.path, self.nxt, self.st, self.kids, self.fval,
                        self.ist, self.ikids, budget, *self.args))

    def _expand_at(self, d: int, bound: int) -> tuple[int, int]:
        return _expand(d, bound, self.path, self.st, self.kids, self.fval,  # type: ignore[no-any-return]
                       self.ist, self.ikids, *self.args)


def search(puzzle: Puzzle, spec: IdaSpec, start: np.ndarray, max_nodes: int | None,
           deadline_s: float | None, threads: int = 1,
           order: str = "actions") -> dict[str, Any]:
    """IDA* from ``start (L,)``; see :mod:`solvers.ida` for the contract. ``threads`` > 1
    searches each iteration's subtrees in parallel (:mod:`solvers._ida_cube_parallel`);
    ``order`` as :func:`solvers._ida_cube.search_with`."""
    return search_with(TwoSidedSearch(puzzle, spec, start), max_nodes, deadline_s, threads, order)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel and map the tables' pages (:func:`solvers._ida_cube.warm_with`)."""
    warm_with(puzzle, spec, search)
