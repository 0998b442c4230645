"""Numba kernel of the macro-table learner: pairing the states of one group (see
``solvers.macro_table``)."""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.int64(1) << 40


@njit(cache=True)
def pair_groups(order: np.ndarray, gstart: np.ndarray, piece_loc: np.ndarray, depth: np.ndarray,
                occupant: np.ndarray, home: np.ndarray, skip: np.int64, best_len: np.ndarray,
                best_a: np.ndarray, best_b: np.ndarray) -> None:
    """For every group of states (``order[gstart[g]:gstart[g+1]]``, each group sorted by depth)
    and every pair ``(a, b)`` in it, the sequence ``b`` then ``a`` undone moves the piece at
    ``home[occupant[b, piece_loc[a]]]`` to the piece's home; keep the shortest per location.

    ``piece_loc[s]``: where the row's piece is in state ``s``; ``occupant[s, p]``: the atom on
    location ``p`` in state ``s``; ``home[atom]``: its goal location; ``skip``: the piece's home
    (no macro needed there). ``best_len``/``best_a``/``best_b`` are updated in place.
    """
    n_loc = best_len.shape[0]
    a_of = np.full(n_loc, -1, dtype=np.int64)
    plist = np.empty(n_loc, dtype=np.int64)
    for g in range(gstart.shape[0] - 1):
        lo, hi = gstart[g], gstart[g + 1]
        if hi - lo < 2:
            continue  # one state pairs only with itself: that moves nothing
        m = 0
        for t in range(lo, hi):  # the shallowest state with the piece on each location
            s = order[t]
            p = piece_loc[s]
            if a_of[p] < 0:
                a_of[p] = s
                plist[m] = p
                m += 1
        if m > 1:
            for t in range(lo, hi):
                b = order[t]
                db = depth[b]
                for i in range(m):
                    p = plist[i]
                    j = home[occupant[b, p]]
                    if j == skip:
                        continue
                    total = depth[a_of[p]] + db
                    if total < best_len[j]:
                        best_len[j] = total
                        best_a[j] = a_of[p]
                        best_b[j] = b
        for i in range(m):
            a_of[plist[i]] = -1
