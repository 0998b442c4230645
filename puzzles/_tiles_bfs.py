"""Numba kernel for sliding-tile puzzles: the exhaustive breadth-first search of a small board.

Arrays and scalars only; the checked public wrapper is ``puzzles.exhaustive``. States are stored
at their lexicographic rank (``puzzles.perm_ranks``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzles.perm_ranks import perm_rank, perm_unrank


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
