"""Numba kernels for sliding-tile puzzles: permutation ranking and an exhaustive BFS.

Kernels take arrays and scalars only; the checked public wrappers are in ``puzzles.exhaustive``.
Ranks are lexicographic (Lehmer code): the identity permutation has rank 0 and the reversed one
rank ``n! - 1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def perm_rank(perm: np.ndarray) -> np.int64:
    """Lexicographic rank of one permutation ``perm`` (n,) of ``0 .. n-1`` (n <= 20)."""
    n = perm.shape[0]
    rank = np.int64(0)
    for i in range(n):
        smaller = 0
        for j in range(i + 1, n):
            if perm[j] < perm[i]:
                smaller += 1
        rank = rank * (n - i) + smaller
    return rank


@njit(cache=True)
def perm_unrank(rank: np.int64, n: int, out: np.ndarray) -> None:
    """Write the permutation of lexicographic ``rank`` into ``out`` (n,) (inverse of ``perm_rank``)."""
    digits = np.empty(n, dtype=np.int64)
    r = rank
    for i in range(n - 1, -1, -1):  # factorial-base digits, least significant last
        base = n - i
        digits[i] = r % base
        r //= base
    used = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        k = digits[i]
        for v in range(n):
            if not used[v]:
                if k == 0:
                    out[i] = v
                    used[v] = True
                    break
                k -= 1


@njit(cache=True)
def perm_rank_batch(perms: np.ndarray, out: np.ndarray) -> None:
    """Ranks of ``perms`` (B, n) into ``out`` (B,) int64."""
    for b in range(perms.shape[0]):
        out[b] = perm_rank(perms[b])


@njit(cache=True)
def perm_unrank_batch(ranks: np.ndarray, n: int, out: np.ndarray) -> None:
    """Permutations of ``ranks`` (B,) into ``out`` (B, n)."""
    for b in range(ranks.shape[0]):
        perm_unrank(ranks[b], n, out[b])


@njit(cache=True)
def bfs_distances(goal: np.ndarray, moves: np.ndarray, dist: np.ndarray) -> int:
    """Breadth-first search over all permutations reachable from ``goal`` (n,) uint8.

    ``moves`` (n, 4) is the blank's next cell per action or -1; ``dist`` (n!,) int8 must be filled
    with -1 and receives the distance of every reachable state at its lexicographic rank.
    Returns the number of reachable states.
    """
    n = goal.shape[0]
    queue = np.empty(dist.shape[0], dtype=np.int64)
    state = np.empty(n, dtype=np.uint8)
    r0 = perm_rank(goal)
    dist[r0] = 0
    queue[0] = r0
    head = 0
    tail = 1
    while head < tail:
        r = queue[head]
        head += 1
        perm_unrank(r, n, state)
        blank = 0
        for i in range(n):
            if state[i] == 0:
                blank = i
                break
        d = dist[r]
        for a in range(4):
            t = moves[blank, a]
            if t < 0:
                continue
            state[blank] = state[t]
            state[t] = 0
            rc = perm_rank(state)
            if dist[rc] < 0:
                dist[rc] = d + 1
                queue[tail] = rc
                tail += 1
            state[t] = state[blank]
            state[blank] = 0
    return tail
