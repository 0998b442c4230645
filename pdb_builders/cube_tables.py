"""Numba kernels for cube coordinates, coordinate move tables and breadth-first PDB builds.

Arrays and scalars only; no classes, no I/O. The validating wrappers live in
:mod:`pdb_builders.korf_cube`.

Conventions (Kociemba's cubie level). A cube is ``(cp, co, ep, eo)``: ``cp[i]`` is the corner
in corner position ``i`` (``0..7``: URF UFL ULB UBR DFR DLF DBL DRB), ``co[i]`` its twist
(``0..2``); ``ep[i]`` the edge in edge position ``i`` (``0..11``: UR UF UL UB DR DF DL DB FR FL
BL BR), ``eo[i]`` its flip. A move ``m`` applied to ``s`` gives ``s * m``::

    cp'[i] = cp[m.cp[i]]      co'[i] = (co[m.cp[i]] + m.co[i]) % 3
    ep'[i] = ep[m.ep[i]]      eo'[i] = eo[m.ep[i]] ^ m.eo[i]

so a piece in position ``j`` moves to the position ``i`` with ``m.cp[i] == j`` (the inverse
map ``inv[j] = i``) and its orientation there changes by ``m.co[i]`` / ``m.eo[i]``.

Coordinates (all ranks are mixed-radix "partial permutation" ranks: the ``j``-th tracked
piece's position is encoded by how many still-free positions lie below it):

* ``rank_partial(pos, n)`` (``puzzles.perm_ranks``): ranks the positions ``pos[0..k-1]`` of
  ``k`` tracked pieces among ``n`` positions, ``0 .. n!/(n-k)! - 1``; the solved arrangement
  ``pos[j] == j`` has rank 0.
* corner twist: ``sum_{i<n-1} co[i] * 3**(n-2-i)`` over positions (the last is implied).
* edge pattern of ``k`` tracked edges: ``rank << k | flips`` where bit ``j`` of ``flips`` is the
  flip of the ``j``-th tracked edge. Its move table ``comb[P, a]`` holds ``newP << k | mask``
  so that the child index is ``comb[P, a] ^ flips``: one lookup per move.

Distance tables are ``uint8`` with ``UNSEEN = 255`` for states not reached yet.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from puzzles.perm_ranks import rank_partial, unrank_partial

UNSEEN = 255


# ----------------------------------------------------------------------------- ranking
@njit(cache=True)
def twist_rank(co: np.ndarray, n: int) -> int:
    """Twist coordinate of the first ``n - 1`` of ``n`` corner orientations ``co``."""
    r = 0
    for i in range(n - 1):
        r = 3 * r + co[i]
    return r


@njit(cache=True)
def twist_unrank(r: int, n: int, out: np.ndarray) -> None:
    """Write the ``n`` orientations (the last one makes the sum divisible by 3) into ``out``."""
    total = 0
    for i in range(n - 2, -1, -1):
        out[i] = r % 3
        total += r % 3
        r //= 3
    out[n - 1] = (3 - total % 3) % 3


# ----------------------------------------------------------------------------- move tables
@njit(cache=True)
def pos_move_table(k: int, n: int, inv: np.ndarray) -> np.ndarray:
    """``(n!/(n-k)!, A)`` int32: rank of the tracked pieces' positions after each move.

    ``inv (A, n)``: ``inv[a, j]`` is the position a piece in position ``j`` moves to.
    """
    size = 1
    for j in range(k):
        size *= n - j
    num_moves = inv.shape[0]
    table = np.empty((size, num_moves), dtype=np.int32)
    pos = np.empty(k, dtype=np.int64)
    new = np.empty(k, dtype=np.int64)
    for r in range(size):
        unrank_partial(r, n, k, pos)
        for a in range(num_moves):
            for j in range(k):
                new[j] = inv[a, pos[j]]
            table[r, a] = rank_partial(new, n)
    return table


@njit(cache=True)
def twist_move_table(n: int, perm: np.ndarray, twist: np.ndarray) -> np.ndarray:
    """``(3**(n-1), A)`` int32 twist coordinate after each move.

    ``perm (A, n)``, ``twist (A, n)``: the moves' corner permutation and twist (``m.cp``, ``m.co``).
    """
    size = 3 ** (n - 1)
    num_moves = perm.shape[0]
    table = np.empty((size, num_moves), dtype=np.int32)
    co = np.empty(n, dtype=np.int64)
    new = np.empty(n, dtype=np.int64)
    for r in range(size):
        twist_unrank(r, n, co)
        for a in range(num_moves):
            for i in range(n):
                new[i] = (co[perm[a, i]] + twist[a, i]) % 3
            table[r, a] = twist_rank(new, n)
    return table


@njit(cache=True)
def edge_move_table(k: int, inv: np.ndarray, flip: np.ndarray) -> np.ndarray:
    """``(12!/(12-k)!, A)`` int32 combined edge-pattern table ``newP << k | flip_mask``.

    ``inv (A, 12)``: where a piece in position ``j`` goes; ``flip (A, 12)``: ``m.eo``.
    """
    size = 1
    for j in range(k):
        size *= 12 - j
    num_moves = inv.shape[0]
    table = np.empty((size, num_moves), dtype=np.int32)
    pos = np.empty(k, dtype=np.int64)
    new = np.empty(k, dtype=np.int64)
    for r in range(size):
        unrank_partial(r, 12, k, pos)
        for a in range(num_moves):
            mask = 0
            for j in range(k):
                q = inv[a, pos[j]]
                new[j] = q
                mask |= flip[a, q] << j
            table[r, a] = (rank_partial(new, 12) << k) | mask
    return table


# ----------------------------------------------------------------------------- coordinates
@njit(cache=True)
def corner_coords(cp: np.ndarray, co: np.ndarray, relabel: np.ndarray) -> np.ndarray:
    """``(B, 8), (B, 8) -> (B, 2)`` int64: corner position rank and twist.

    ``relabel (8,)`` maps positions/corners to ``0 .. n-1`` (``-1``: a fixed corner left out,
    as DBL on the 2x2x2); ``n`` is the number of entries that are not ``-1``.
    """
    n = 0
    for i in range(8):
        if relabel[i] >= 0:
            n += 1
    out = np.empty((cp.shape[0], 2), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    ori = np.empty(n, dtype=np.int64)
    for b in range(cp.shape[0]):
        for i in range(8):
            li = relabel[i]
            if li >= 0:
                pos[relabel[cp[b, i]]] = li
                ori[li] = co[b, i]
        out[b, 0] = rank_partial(pos, n)
        out[b, 1] = twist_rank(ori, n)
    return out


@njit(cache=True)
def edge_coords(ep: np.ndarray, eo: np.ndarray, tracked: np.ndarray) -> np.ndarray:
    """``(B, 12), (B, 12) -> (B,)`` int64 edge-pattern index of the edges ``tracked (k,)``."""
    k = tracked.shape[0]
    out = np.empty(ep.shape[0], dtype=np.int64)
    where = np.empty(12, dtype=np.int64)
    pos = np.empty(k, dtype=np.int64)
    for b in range(ep.shape[0]):
        for i in range(12):
            where[ep[b, i]] = i
        flips = 0
        for j in range(k):
            p = where[tracked[j]]
            pos[j] = p
            flips |= eo[b, p] << j
        out[b] = (rank_partial(pos, 12) << k) | flips
    return out


# ----------------------------------------------------------------------------- packed tables
@njit(cache=True, inline="always")
def nibble(packed: np.ndarray, i: int) -> int:
    """Entry ``i`` of a 4-bit packed table (low nibble first)."""
    return (packed[i >> 1] >> ((i & 1) << 2)) & 15


@njit(cache=True)
def lookup_packed(packed: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``(B,)`` indices -> ``(B,)`` uint8 values of a 4-bit packed table."""
    out = np.empty(idx.shape[0], dtype=np.uint8)
    for b in range(idx.shape[0]):
        out[b] = nibble(packed, idx[b])
    return out


# ----------------------------------------------------------------------------- breadth-first search
@njit(cache=True, inline="always")
def _child(i: int, a: int, kind: int, pm: np.ndarray, tm: np.ndarray, nt: int) -> int:
    # kind 0: index = P * nt + T with separate move tables; kind 1: edge pattern, nt = 2**k
    if kind == 0:
        p = i // nt
        return pm[p, a] * nt + tm[i - p * nt, a]
    return pm[i // nt, a] ^ (i & (nt - 1))


@njit(cache=True, parallel=True)
def bfs_forward(dist: np.ndarray, depth: int, kind: int, pm: np.ndarray, tm: np.ndarray,
                nt: int) -> None:
    """Mark every unseen child of a state at ``depth`` with ``depth + 1`` (frontier expansion)."""
    num_moves = pm.shape[1]
    for i in prange(dist.shape[0]):
        if dist[i] == depth:
            for a in range(num_moves):
                c = _child(i, a, kind, pm, tm, nt)
                if dist[c] == UNSEEN:
                    dist[c] = depth + 1


@njit(cache=True, parallel=True)
def bfs_backward(dist: np.ndarray, depth: int, kind: int, pm: np.ndarray, tm: np.ndarray,
                 nt: int) -> None:
    """Mark every unseen state with a neighbour at ``depth`` with ``depth + 1``.

    The move set is closed under inverses, so a neighbour is also a parent.
    """
    num_moves = pm.shape[1]
    for i in prange(dist.shape[0]):
        if dist[i] == UNSEEN:
            for a in range(num_moves):
                if dist[_child(i, a, kind, pm, tm, nt)] == depth:
                    dist[i] = depth + 1
                    break


@njit(cache=True, parallel=True)
def count_value(dist: np.ndarray, value: int) -> int:
    """Number of entries equal to ``value``."""
    total = 0
    for i in prange(dist.shape[0]):
        if dist[i] == value:
            total += 1
    return total


# ----------------------------------------------------------------------------- fused evaluation
