"""Numba kernels for tile heuristics: Manhattan distance and linear conflicts.

States here are in the blank-first canonical layout (tile ``t``'s goal cell is ``t``) on a
``w x w`` board, ``n = w * w``; ``md`` is the ``(n, n)`` table of Manhattan distances
``md[t, c]`` of tile ``t`` standing on cell ``c`` (row 0 for the blank).
"""

from __future__ import annotations

import numpy as np
from numba import njit


def manhattan_table(w: int) -> np.ndarray:
    """``(n, n)`` int32: ``md[t, c] = |row(t) - row(c)| + |col(t) - col(c)|``, ``md[0] = 0``."""
    c = np.arange(w * w)
    r, k = np.divmod(c, w)
    md = np.abs(r[:, None] - r[None, :]) + np.abs(k[:, None] - k[None, :])
    md[0, :] = 0
    return md.astype(np.int32)


@njit(cache=True, nogil=True)
def line_conflicts(tiles: np.ndarray, w: int, line: int, is_row: bool, keys: np.ndarray,
                   lis: np.ndarray) -> int:
    """Tiles that must leave line ``line`` (a row when ``is_row``) to let the others pass:
    among tiles in the line whose goal is in the same line, their count minus the longest
    increasing run of their goal coordinates along the line. ``keys`` and ``lis`` are ``(w,)``
    int64 scratch arrays."""
    m = 0
    for i in range(w):
        c = line * w + i if is_row else i * w + line
        t = tiles[c]
        if t == 0:
            continue
        if is_row:
            if t // w == line:
                keys[m] = t % w
                m += 1
        elif t % w == line:
            keys[m] = t // w
            m += 1
    if m < 2:
        return 0
    best = 0
    for i in range(m):
        v = 1
        for j in range(i):
            if keys[j] < keys[i] and lis[j] + 1 > v:
                v = lis[j] + 1
        lis[i] = v
        if v > best:
            best = v
    return m - best


@njit(cache=True)
def linear_conflict_batch(states: np.ndarray, w: int, md: np.ndarray) -> np.ndarray:
    """``(B, n)`` canonical states -> ``(B,)`` int32: Manhattan + 2 * line conflicts."""
    b_count, n = states.shape
    out = np.empty(b_count, dtype=np.int32)
    keys = np.empty(w, dtype=np.int64)
    lis = np.empty(w, dtype=np.int64)
    for b in range(b_count):
        s = states[b]
        h = 0
        for c in range(n):
            h += md[s[c], c]
        lc = 0
        for line in range(w):
            lc += line_conflicts(s, w, line, True, keys, lis)
            lc += line_conflicts(s, w, line, False, keys, lis)
        out[b] = h + 2 * lc
    return out
