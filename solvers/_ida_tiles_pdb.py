"""The IDA* search of the sliding-tile puzzles under additive pattern databases: its search
class :class:`AdditivePdbSearch` (a ``solvers._ida_tiles_base.TilesSearch``, which keeps the common
search state and is called in slices) and its loop, reading the heuristic's
``heuristics.pdb_tiles.AdditivePdbTables`` by name.

The terms are evaluated incrementally: only those that read the moved tile (one plain, one
reflected) or the blank (``pdb-full``) are looked up again; the plain and reflected sums are
kept apart. State and return codes as in ``solvers._ida_tiles._run_lc``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from heuristics.pdb_tiles import AdditivePdbTables
from pdb_builders.additive_kernels import entry_value, sparse_index, table_get
from solvers._ida_engine import ITER_DONE, PAUSED, SOLVED, U
from solvers._ida_tiles_base import SLICE_SLOW, TilesSearch


@njit(cache=True, nogil=True)
def run_pdb(w: int, bound: int, budget_end: int, tiles: np.ndarray, pos: np.ndarray,
            moves: np.ndarray, st: np.ndarray, next_a: np.ndarray, path: np.ndarray,
            sums: np.ndarray, vals: np.ndarray, idx: np.ndarray, undo_e: np.ndarray,
            undo_v: np.ndarray, undo_i: np.ndarray, undo_n: np.ndarray,
            rec: AdditivePdbTables) -> int:
    """The search kernel for additive PDBs (state and return codes as in ``solvers._ida_tiles._run_lc``),
    without copying the terms per depth.

    ``vals`` (``(E,)``) holds the current node's terms; a move re-reads the terms of the moved
    tile (and the blank's, for ``pdb-full``) and logs the old values in ``undo_e/undo_v[d]``
    (``undo_n[d]`` of them) to restore them when the search comes back. ``sums[d]`` = (plain
    sum, reflected sum) at depth ``d``; ``moves`` is ``(n * 4,)``.

    ``rec.sparse``: the tables are in the sparse layout (``pdb_builders.additive_kernels.
    sparse_layout``), one after the other in ``flat`` (nibbles when ``fpacked``), and ``idx[e]``
    holds each term's index there, moved by ``dep_w`` times the moved piece's change of cell
    (logged in ``undo_i``); otherwise each lookup ranks its placement in ``tables``.

    The reflected terms are read only when they can matter: a child whose plain sum already puts
    it beyond the bound is cut without them unless its ``f`` could still lower the next bound, so
    the cut-off decisions, the next bound and the node counts are those of the full maximum.
    """
    ent_tiles, ent_k, ent_flag, ent_tab = rec.ent_tiles, rec.ent_k, rec.ent_flag, rec.ent_tab
    transpose, dep, dep_w, tables = rec.transpose, rec.dep, rec.dep_w, rec.tables
    packed, sparse, flat, fpacked = rec.packed, rec.sparse, rec.flat, rec.fpacked
    n = w * w
    d = st[0]
    blank = st[1]
    gen = st[2]
    exp = st[3]
    nextb = st[4]
    buf = np.empty(n, dtype=np.int64)
    sp = sums[U(d), 0]
    sr = sums[U(d), 1]
    back = path[U(d - 1)] ^ 1 if d > 0 else -1
    a = next_a[U(d)]
    status = ITER_DONE
    while True:
        if a >= 4:
            if d == st[5]:
                status = ITER_DONE
                break
            d -= 1
            ud = U(d)
            for j in range(undo_n[ud] - 1, -1, -1):
                e = undo_e[ud, U(j)]
                vals[U(e)] = undo_v[ud, U(j)]
                idx[U(e)] = undo_i[ud, U(j)]
            ob = moves[U(blank * 4 + (path[ud] ^ 1))]
            t = tiles[U(ob)]
            tiles[U(blank)] = t
            tiles[U(ob)] = 0
            pos[U(t)] = blank
            pos[0] = ob
            blank = ob
            sp = sums[ud, 0]
            sr = sums[ud, 1]
            a = next_a[ud]
            back = path[U(d - 1)] ^ 1 if d > 0 else -1
            continue
        cur = a
        a += 1
        if cur == back:
            continue
        nb = moves[U(blank * 4 + cur)]
        if nb < 0:
            continue
        t = tiles[U(nb)]
        ob = blank
        if not sparse:  # the ranked lookups read the child's cells
            tiles[U(ob)] = t
            tiles[U(nb)] = 0
            pos[U(t)] = ob
            pos[0] = nb
        gen += 1
        ud = U(d)
        nsp = sp
        nsr = sr
        cnt = 0
        for side in range(2):
            if side == 1:
                # the plain sum alone may decide: cut, and f cannot lower the next bound
                f0 = d + 1 + nsp
                if f0 > bound and f0 >= nextb:
                    break
            for x in (t, 0):
                e = dep[U(x), U(side)]
                if e < 0:
                    continue
                ue = U(e)
                old = vals[ue]
                oi = idx[ue]
                if sparse:
                    c0 = nb if x != 0 else ob  # the piece's cell before the move
                    c1 = ob if x != 0 else nb
                    if ent_flag[ue]:
                        c0 = transpose[U(c0)]
                        c1 = transpose[U(c1)]
                    ni = oi + (c1 - c0) * dep_w[U(x), U(side)]
                    v = table_get(flat, fpacked, ni)
                    idx[ue] = ni
                else:
                    v = entry_value(e, pos, ent_tiles, ent_k, ent_flag, ent_tab, transpose,
                                    tables, packed, n, buf)
                if side == 0:
                    nsp += v - old
                else:
                    nsr += v - old
                undo_e[ud, U(cnt)] = e
                undo_v[ud, U(cnt)] = old
                undo_i[ud, U(cnt)] = oi
                vals[ue] = v
                cnt += 1
        h = nsp if nsp >= nsr else nsr
        f = d + 1 + h
        if f > bound:
            if f < nextb:
                nextb = f
            for j in range(cnt - 1, -1, -1):
                e = undo_e[ud, U(j)]
                vals[U(e)] = undo_v[ud, U(j)]
                idx[U(e)] = undo_i[ud, U(j)]
            if not sparse:
                tiles[U(nb)] = t
                tiles[U(ob)] = 0
                pos[U(t)] = nb
                pos[0] = ob
            continue
        if sparse:
            tiles[U(ob)] = t
            tiles[U(nb)] = 0
            pos[U(t)] = ob
            pos[0] = nb
        blank = nb
        path[ud] = cur
        next_a[ud] = a
        undo_n[ud] = cnt
        d += 1
        sums[U(d), 0] = nsp
        sums[U(d), 1] = nsr
        sp = nsp
        sr = nsr
        if h == 0 and blank == 0:
            goal = True
            for c in range(n):
                if tiles[U(c)] != c:
                    goal = False
                    break
            if goal:
                status = SOLVED
                break
        if d >= path.shape[0] - 1:
            raise RuntimeError("tiles IDA*: search deeper than the stack")
        a = 0
        back = cur ^ 1
        exp += 1
        if gen >= budget_end:
            next_a[U(d)] = 0
            status = PAUSED
            break
    st[0] = d
    st[1] = blank
    st[2] = gen
    st[3] = exp
    st[4] = nextb
    return status


@njit(cache=True)
def _initial_terms(w: int, pos: np.ndarray, vals: np.ndarray, idx: np.ndarray,
                   rec: AdditivePdbTables) -> int:
    """Fill ``vals[0]`` with the root's terms and their two sums (and, for sparse tables, the
    terms' indices in ``idx``); return the root's heuristic."""
    n = w * w
    buf = np.empty(n, dtype=np.int64)
    h = 0
    hr = 0
    for e in range(rec.ent_k.shape[0]):
        if rec.sparse:
            idx[e] = rec.offsets[rec.ent_tab[e]] + sparse_index(e, pos, rec.ent_tiles, rec.ent_k,
                                                            rec.ent_flag, rec.transpose, n)
            v = int(table_get(rec.flat, rec.fpacked, idx[e]))
        else:
            v = int(entry_value(e, pos, rec.ent_tiles, rec.ent_k, rec.ent_flag, rec.ent_tab,
                                rec.transpose, rec.tables, rec.packed, n, buf))
        vals[0, e] = v
        if e < rec.num_plain:
            h += v
        else:
            hr += v
    vals[0, rec.ent_k.shape[0]] = h
    vals[0, rec.ent_k.shape[0] + 1] = hr
    return max(h, hr)


class AdditivePdbSearch(TilesSearch):
    """A tiles IDA* search under additive PDBs: the root's terms stay in ``vals`` (updated in
    place, the old values logged per depth in ``undo_*``), their plain and reflected sums per
    depth in ``sums``."""

    record: ClassVar[type] = AdditivePdbTables
    slice_nodes: ClassVar[int] = SLICE_SLOW
    tables: AdditivePdbTables

    def _allocate(self, depth_cap: int) -> None:
        self.nent = nent = max(1, self.tables.ent_k.shape[0])
        self.vals2 = np.zeros((1, nent + 2), dtype=np.int64)  # the root's terms and two sums
        self.vals = self.vals2[0]
        self.idx = np.zeros(nent, dtype=np.int64)  # the terms' sparse indices
        self.sums = np.zeros((depth_cap, 2), dtype=np.int64)
        self.undo_e = np.zeros((depth_cap, 4), dtype=np.int64)
        self.undo_v = np.zeros((depth_cap, 4), dtype=np.int64)
        self.undo_i = np.zeros((depth_cap, 4), dtype=np.int64)
        self.undo_n = np.zeros(depth_cap, dtype=np.int64)

    def _root_value(self, root: int) -> int:
        h = int(_initial_terms(self.w, self.pos, self.vals2, self.idx, self.tables))
        self.sums[root, 0] = self.vals2[0, self.nent]
        self.sums[root, 1] = self.vals2[0, self.nent + 1]
        return h

    def _run(self, budget_end: int) -> int:
        return int(run_pdb(self.w, self.bound, budget_end, self.tiles, self.pos,
                           self.moves_flat, self.st, self.next_a, self.path, self.sums, self.vals,
                           self.idx, self.undo_e, self.undo_v, self.undo_i, self.undo_n,
                           self.tables))
