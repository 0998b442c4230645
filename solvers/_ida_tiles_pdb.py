"""The IDA* search loop of the sliding-tile puzzles under additive pattern databases (one of the
loops of ``solvers._ida_tiles``, which keeps the search state and calls it in slices).

The terms are evaluated incrementally: only those that read the moved tile (one plain, one
reflected) or the blank (``pdb-full``) are looked up again; the plain and reflected sums are
kept apart. State and return codes as in ``solvers._ida_tiles._run_lc``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pdb_builders.additive_kernels import entry_value, table_get
from solvers._ida_engine import ITER_DONE, PAUSED, SOLVED, U


@njit(cache=True, nogil=True)
def run_pdb(w: int, bound: int, budget_end: int, tiles: np.ndarray, pos: np.ndarray,
            moves: np.ndarray, st: np.ndarray, next_a: np.ndarray, path: np.ndarray,
            sums: np.ndarray, vals: np.ndarray, idx: np.ndarray, undo_e: np.ndarray,
            undo_v: np.ndarray, undo_i: np.ndarray, undo_n: np.ndarray, ent_tiles: np.ndarray,
            ent_k: np.ndarray, ent_flag: np.ndarray, ent_tab: np.ndarray, transpose: np.ndarray,
            dep: np.ndarray, dep_w: np.ndarray, tables, packed: np.ndarray,
            sparse: bool, flat: np.ndarray, fpacked: bool) -> int:
    """The search kernel for additive PDBs (state and return codes as in ``solvers._ida_tiles._run_lc``),
    without copying the terms per depth.

    ``vals`` (``(E,)``) holds the current node's terms; a move re-reads the terms of the moved
    tile (and the blank's, for ``pdb-full``) and logs the old values in ``undo_e/undo_v[d]``
    (``undo_n[d]`` of them) to restore them when the search comes back. ``sums[d]`` = (plain
    sum, reflected sum) at depth ``d``; ``moves`` is ``(n * 4,)``.

    ``sparse``: the tables are in the sparse layout (``pdb_builders.additive_kernels.
    sparse_layout``), one after the other in ``flat`` (nibbles when ``fpacked``), and ``idx[e]``
    holds each term's index there, moved by ``dep_w`` times the moved piece's change of cell
    (logged in ``undo_i``); otherwise each lookup ranks its placement in ``tables``.

    The reflected terms are read only when they can matter: a child whose plain sum already puts
    it beyond the bound is cut without them unless its ``f`` could still lower the next bound, so
    the cut-off decisions, the next bound and the node counts are those of the full maximum.
    """
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
