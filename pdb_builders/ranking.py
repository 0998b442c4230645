"""Ranking of permutations and partial permutations (validated wrappers of ``puzzles.perm_ranks``).

A placement of ``k`` pattern pieces among ``n`` cells is a ``(k,)`` array of distinct cells;
its rank lies in ``0 .. num_placements(n, k) - 1`` where ``num_placements(n, k) = n!/(n-k)!``
(compact: no gaps, not ``n**k``). ``k == n`` ranks full permutations. The scheme is named
``"partial-perm-lex"`` in database files.
"""

from __future__ import annotations

import math

import numpy as np

from core.errors import InputError
from puzzles import perm_ranks as _k

SCHEME = "partial-perm-lex"


def num_placements(n: int, k: int) -> int:
    """``n! / (n - k)!``: the number of ways to place ``k`` distinct pieces in ``n`` cells."""
    if not 0 <= k <= n:
        raise InputError(f"k: expected 0 <= k <= n = {n}, got {k}")
    return math.perm(n, k)


def _check_positions(pos: np.ndarray, n: int) -> np.ndarray:
    p = np.asarray(pos)
    if p.ndim not in (1, 2):
        raise InputError(f"pos: expected shape (k,) or (B, k), got {p.shape}")
    if not np.issubdtype(p.dtype, np.integer):
        raise InputError(f"pos: expected integers, got dtype {p.dtype}")
    if p.shape[-1] > n:
        raise InputError(f"pos: {p.shape[-1]} pieces cannot fit in {n} cells")
    if p.size and (p.min() < 0 or p.max() >= n):
        raise InputError(f"pos: cells must lie in 0..{n - 1}")
    p2 = np.atleast_2d(p)
    if p2.shape[1] > 1:
        srt = np.sort(p2, axis=1)
        if np.any(srt[:, 1:] == srt[:, :-1]):
            raise InputError("pos: cells of one placement must be distinct")
    return np.ascontiguousarray(p2, dtype=np.int64)


def rank(pos: np.ndarray, n: int) -> np.ndarray | int:
    """Rank of a placement ``(k,)`` -> int, or of a batch ``(B, k)`` -> ``(B,)`` int64."""
    p = np.asarray(pos)
    r = _k.rank_partial_batch(_check_positions(p, n), int(n))
    return int(r[0]) if p.ndim == 1 else r


def unrank(ranks: np.ndarray | int, n: int, k: int) -> np.ndarray:
    """Placements of ranks: int -> ``(k,)``, ``(B,)`` -> ``(B, k)`` int64."""
    total = num_placements(n, k)
    r = np.asarray(ranks)
    if not np.issubdtype(r.dtype, np.integer):
        raise InputError(f"ranks: expected integers, got dtype {r.dtype}")
    if r.size and (r.min() < 0 or r.max() >= total):
        raise InputError(f"ranks: must lie in 0..{total - 1}")
    out = _k.unrank_partial_batch(np.ascontiguousarray(np.atleast_1d(r), dtype=np.int64), int(n), int(k))
    return out[0] if r.ndim == 0 else out
