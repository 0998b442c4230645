"""Numba kernels: the one lexicographic ranking of permutations and partial permutations, used
by the tile and cube puzzles, the pattern-database builders and the heuristics' lookups.

A partial permutation places ``k`` distinct pieces among ``n`` cells: ``pos[i]`` is the cell of
piece ``i``. Its rank is the mixed-radix number with digits ``d_i`` = the number of free cells
below ``pos[i]`` (cells not taken by pieces ``0 .. i-1``), radices ``n, n-1, .., n-k+1``::

    rank = (..((d_0 * (n-1) + d_1) * (n-2) + d_2) ..) * (n-k+1) + d_{k-1}

so ranks run over ``0 .. n!/(n-k)! - 1`` without gaps (lexicographic order of the tuples).
``k = n`` gives the lexicographic rank (Lehmer code) of a permutation: the identity has rank 0
and the reversed permutation ``n! - 1`` (``n <= 20``). Scalars and arrays only (signed or small
unsigned integers); the checked public wrappers are ``pdb_builders.ranking`` and
``puzzles.exhaustive``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rank_partial(pos: np.ndarray, n: int) -> int:
    """Rank of the placement ``pos`` (``(k,)`` distinct cells in ``0 .. n-1``)."""
    k = pos.shape[0]
    r = 0
    for i in range(k):
        p = pos[i]
        d = int(p)  # a Python int: small unsigned cells must not narrow the rank (no-JIT runs)
        for j in range(i):
            if pos[j] < p:
                d -= 1
        r = r * (n - i) + d
    return r


@njit(cache=True, nogil=True)
def unrank_partial(r: int, n: int, k: int, out: np.ndarray) -> None:
    """Inverse of :func:`rank_partial`: writes the ``k`` cells into ``out[:k]``."""
    # digits, last first
    for i in range(k - 1, -1, -1):
        radix = n - i
        out[i] = r % radix
        r //= radix
    # digit d_i -> the d_i-th free cell (in increasing order) among cells not used by 0..i-1
    for i in range(k):
        d = out[i]
        c = 0
        while True:
            used = False
            for j in range(i):
                if out[j] == c:
                    used = True
                    break
            if not used:
                if d == 0:
                    break
                d -= 1
            c += 1
        out[i] = c


@njit(cache=True, nogil=True)
def perm_rank(perm: np.ndarray) -> int:
    """Lexicographic rank of one permutation ``perm`` (n,) of ``0 .. n-1``."""
    return rank_partial(perm, perm.shape[0])


@njit(cache=True, nogil=True)
def perm_unrank(rank: int, n: int, out: np.ndarray) -> None:
    """Write the permutation of lexicographic ``rank`` into ``out`` (n,) (inverse of
    :func:`perm_rank`)."""
    unrank_partial(rank, n, n, out)


@njit(cache=True)
def rank_partial_batch(pos: np.ndarray, n: int) -> np.ndarray:
    """Ranks of ``(B, k)`` placements -> ``(B,)`` int64 (``k = n``: permutations)."""
    out = np.empty(pos.shape[0], dtype=np.int64)
    for b in range(pos.shape[0]):
        out[b] = rank_partial(pos[b], n)
    return out


@njit(cache=True)
def unrank_partial_batch(ranks: np.ndarray, n: int, k: int) -> np.ndarray:
    """Placements ``(B, k)`` int64 of ``(B,)`` ranks (``k = n``: permutations)."""
    out = np.empty((ranks.shape[0], k), dtype=np.int64)
    for b in range(ranks.shape[0]):
        unrank_partial(ranks[b], n, k, out[b])
    return out


@njit(cache=True)
def perm_unrank_batch(ranks: np.ndarray, n: int, out: np.ndarray) -> None:
    """Permutations of ``ranks`` (B,) into ``out`` (B, n) of the caller's dtype."""
    for b in range(ranks.shape[0]):
        unrank_partial(ranks[b], n, n, out[b])
