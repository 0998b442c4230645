"""Numba kernels of the cube pattern-database heuristics (``pdb-korf``, ``pdb-cube2``): the one
lookup of a state's value (the max of a corner table and two edge tables, 4-bit packed), used by
the batch evaluator below and by the cube IDA* kernel (``solvers._ida_cube``).

Coordinates are those of ``pdb_builders.korf_cube``: a corner position rank and twist rank, and
an edge pattern index per edge table. ``cpart`` says which corner coordinate the corner table
indexes: 0 position and twist (``p * nt + t``), 1 the position only, 2 the twist only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pdb_builders.cube_tables import nibble, twist_rank
from puzzles.perm_ranks import rank_partial


@njit(cache=True, inline="always")
def corner_value(cp: int, tw: int, cpart: int, nt: int, ctab: np.ndarray) -> int:
    """The corner table's value for corner coordinates ``cp, tw``."""
    if cpart == 0:
        return nibble(ctab, cp * nt + tw)
    if cpart == 1:
        return nibble(ctab, cp)
    return nibble(ctab, tw)


@njit(cache=True, inline="always")
def korf_value(cp: int, tw: int, e1: int, e2: int, cpart: int, nt: int, ctab: np.ndarray,
               tab1: np.ndarray, tab2: np.ndarray) -> int:
    """The heuristic: the max of the corner table and the two edge tables."""
    h = corner_value(cp, tw, cpart, nt, ctab)
    v = nibble(tab1, e1)
    if v > h:
        h = v
    v = nibble(tab2, e2)
    if v > h:
        h = v
    return h


@njit(cache=True)
def _edge_index(ep: np.ndarray, eo: np.ndarray, where: np.ndarray, tracked: np.ndarray,
                pos: np.ndarray) -> int:
    k = tracked.shape[0]
    flips = 0
    for j in range(k):
        p = where[tracked[j]]
        pos[j] = p
        flips |= eo[p] << j
    return (rank_partial(pos[:k], 12) << k) | flips


@njit(cache=True)
def pdb_values_from_facelets(states: np.ndarray, cf: np.ndarray, ef: np.ndarray,
                             clut: np.ndarray, elut: np.ndarray, flut: np.ndarray,
                             ud0: int, ud1: int, relabel: np.ndarray, cpart: int, nt: int,
                             ctab: np.ndarray, edges1: np.ndarray, tab1: np.ndarray,
                             edges2: np.ndarray, tab2: np.ndarray, out: np.ndarray) -> int:
    """Max of a corner table and two edge tables for facelet states, in one pass.

    ``states (B, L)`` uint8 colours; ``cf (8, 3)`` corner facelets (the U/D facelet of the solved
    cube first, then clockwise), ``ef (12, 2)`` edge facelets (``(0, 2)`` for the 2x2x2);
    ``clut (6, 6, 6)`` corner of three colours read clockwise from the U/D one, ``elut``/``flut``
    ``(6, 6)`` edge and flip of an edge slot's two colours (``-1``: no such piece); ``ud0``,
    ``ud1`` the U and D colours. Tables are 4-bit packed; ``cpart`` as in the IDA* kernel.
    Writes ``out (B,)`` and returns ``-1``, or the first row that is not a cube.
    """
    n = 0
    for i in range(8):
        if relabel[i] >= 0:
            n += 1
    cp = np.empty(8, dtype=np.int64)
    co = np.empty(8, dtype=np.int64)
    ep = np.zeros(12, dtype=np.int64)
    eo = np.zeros(12, dtype=np.int64)
    where = np.zeros(12, dtype=np.int64)
    cpos = np.empty(n, dtype=np.int64)
    cori = np.empty(n, dtype=np.int64)
    epos = np.empty(12, dtype=np.int64)
    col = np.empty(3, dtype=np.int64)
    for b in range(states.shape[0]):
        for i in range(8):
            o = -1
            for k in range(3):
                col[k] = states[b, cf[i, k]]
                if col[k] > 5:
                    return b
                if col[k] == ud0 or col[k] == ud1:
                    if o >= 0:
                        return b
                    o = k
            if o < 0:
                return b
            c = clut[col[o], col[(o + 1) % 3], col[(o + 2) % 3]]
            if c < 0:
                return b
            cp[i] = c
            co[i] = o
        for i in range(ef.shape[0]):
            if states[b, ef[i, 0]] > 5 or states[b, ef[i, 1]] > 5:
                return b
            e = elut[states[b, ef[i, 0]], states[b, ef[i, 1]]]
            if e < 0:
                return b
            ep[i] = e
            eo[i] = flut[states[b, ef[i, 0]], states[b, ef[i, 1]]]
            where[e] = i
        for i in range(8):
            li = relabel[i]
            if li >= 0:
                lc = relabel[cp[i]]
                if lc < 0:
                    return b
                cpos[lc] = li
                cori[li] = co[i]
        out[b] = korf_value(rank_partial(cpos, n), twist_rank(cori, n),
                            _edge_index(ep, eo, where, edges1, epos),
                            _edge_index(ep, eo, where, edges2, epos), cpart, nt, ctab, tab1, tab2)
    return -1
