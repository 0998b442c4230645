"""Numba kernels of the window shortening (:mod:`solvers.window_shorten`): where two balls meet,
and the hashes of a ball moved to another centre.

A ball is a breadth-first search from one state, held as sorted keys (a state's hash, its low
bits replaced by the state's depth). Two balls around states ``a`` and ``b`` meet in the states
they share; the least sum of the two depths over the shared states is the distance from ``a``
to ``b`` whenever that distance is at most the sum of the radii.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers._bf_kernels import hash_row


@njit(cache=True)
def meet(keys_a, keys_b, below, depth_bits):  # pragma: no cover - compiled
    """Merge two ascending key arrays (``uint64``: a state hash whose low ``depth_bits`` bits
    hold the state's depth); return ``(best, i, j)``: the least depth sum over keys whose hash
    bits agree if it is below ``below``, else ``(below, -1, -1)``. Of keys with equal hash bits
    the least depth sorts first, and each side's first is the one compared."""
    mask = np.uint64((1 << depth_bits) - 1)
    best = below
    bi = -1
    bj = -1
    i = 0
    j = 0
    na = keys_a.shape[0]
    nb = keys_b.shape[0]
    while i < na and j < nb:
        x = keys_a[i] >> np.uint64(depth_bits)
        y = keys_b[j] >> np.uint64(depth_bits)
        if x < y:
            i += 1
        elif y < x:
            j += 1
        else:
            s = int(keys_a[i] & mask) + int(keys_b[j] & mask)
            if s < best:
                best = s
                bi = i
                bj = j
            i += 1
            j += 1
    return best, bi, bj


@njit(cache=True)
def hash_mapped(centre, maps, out):  # pragma: no cover - compiled
    """``out[i] = hash_row(centre[maps[i]])`` for ``maps (n, L)`` (uint8 positions): the states
    that the move sequences behind the maps reach from ``centre``, hashed without making them."""
    row = np.empty(maps.shape[1], dtype=np.uint8)
    for i in range(maps.shape[0]):
        for j in range(maps.shape[1]):
            row[j] = centre[maps[i, j]]
        out[i] = hash_row(row)



@njit(cache=True)
def sort_keys(keys):  # pragma: no cover - compiled
    """``np.sort(keys)`` for ``uint64`` keys spread evenly (hashes): one counting pass on the top
    16 bits, then an insertion sort of each of the 65,536 buckets (a few keys each)."""
    n = keys.shape[0]
    starts = np.zeros(65537, dtype=np.int64)
    for i in range(n):
        starts[(keys[i] >> np.uint64(48)) + np.uint64(1)] += 1
    for b in range(65536):
        starts[b + 1] += starts[b]
    fill = starts[:65536].copy()
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        b = keys[i] >> np.uint64(48)
        out[fill[b]] = keys[i]
        fill[b] += 1
    for b in range(65536):
        lo = starts[b]
        hi = starts[b + 1]
        for i in range(lo + 1, hi):
            x = out[i]
            j = i - 1
            while j >= lo and out[j] > x:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = x
    return out
