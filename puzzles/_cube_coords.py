"""Numba kernels for cube coordinates: orientation ranking and breadth-first search (permutations
are ranked by ``puzzles.perm_ranks``).

Arrays and scalars only; the public wrappers in ``puzzles.cube`` check shapes and dtypes.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def rank_base(digits: np.ndarray, base: int) -> np.ndarray:
    """``digits (B, k)`` read as base-``base`` numbers, most significant first -> ``(B,)``."""
    out = np.zeros(digits.shape[0], dtype=np.int64)
    for b in range(digits.shape[0]):
        r = 0
        for i in range(digits.shape[1]):
            r = r * base + digits[b, i]
        out[b] = r
    return out


@njit(cache=True)
def unrank_base(ranks: np.ndarray, base: int, k: int) -> np.ndarray:
    """Inverse of ``rank_base``: ``(B,) -> (B, k)``."""
    out = np.empty((ranks.shape[0], k), dtype=np.int64)
    for b in range(ranks.shape[0]):
        r = ranks[b]
        for i in range(k - 1, -1, -1):
            out[b, i] = r % base
            r //= base
    return out


@njit(cache=True)
def bfs_product(move_a: np.ndarray, move_b: np.ndarray, start: int) -> np.ndarray:
    """Breadth-first distances over the product of two coordinates.

    ``move_a (Na, A)`` and ``move_b (Nb, A)`` map each coordinate value and action to the new value;
    state index ``i = a * Nb + b``. Returns ``dist (Na * Nb,)`` int8, -1 where unreachable.
    """
    na, num_actions = move_a.shape
    nb = move_b.shape[0]
    total = na * nb
    dist = np.full(total, -1, dtype=np.int8)
    frontier = np.empty(total, dtype=np.int32)
    nxt = np.empty(total, dtype=np.int32)
    dist[start] = 0
    frontier[0] = start
    n = 1
    depth = 0
    while n > 0:
        m = 0
        for k in range(n):
            s = frontier[k]
            a = s // nb
            b = s - a * nb
            for act in range(num_actions):
                c = move_a[a, act] * nb + move_b[b, act]
                if dist[c] < 0:
                    dist[c] = depth + 1
                    nxt[m] = c
                    m += 1
        frontier, nxt = nxt, frontier
        n = m
        depth += 1
    return dist
