"""Numba kernel of the window shortening (:mod:`solvers.window_shorten`): where two balls meet.

A ball is a breadth-first search from one state, held as its distinct state hashes sorted
ascending with each state's depth. Two balls around states ``a`` and ``b`` meet in the states
they share; the least sum of the two depths over the shared states is the distance from ``a``
to ``b`` whenever that distance is at most the sum of the radii.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def meet(hash_a, depth_a, hash_b, depth_b, below):  # pragma: no cover - compiled
    """Merge two ascending hash arrays (``uint64``, each without repeats) with their depths
    (``uint8``); return ``(best, i, j)``: the least ``depth_a[i] + depth_b[j]`` over
    ``hash_a[i] == hash_b[j]`` if it is below ``below``, else ``(below, -1, -1)``."""
    best = below
    bi = -1
    bj = -1
    i = 0
    j = 0
    na = hash_a.shape[0]
    nb = hash_b.shape[0]
    while i < na and j < nb:
        x = hash_a[i]
        y = hash_b[j]
        if x < y:
            i += 1
        elif y < x:
            j += 1
        else:
            s = int(depth_a[i]) + int(depth_b[j])
            if s < best:
                best = s
                bi = i
                bj = j
            i += 1
            j += 1
    return best, bi, bj
