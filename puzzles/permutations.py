"""Permutation parity, the one implementation every puzzle and kernel uses."""

from __future__ import annotations

import numpy as np


def parities(states: np.ndarray) -> np.ndarray:
    """Parity of each row read as a permutation of ``0 .. N-1``: ``(B, N) -> (B,)`` int64 in {0, 1}.

    Counts cycles (parity = (N - cycles) mod 2), vectorised over the batch.
    """
    s = np.atleast_2d(np.asarray(states)).astype(np.int64)
    b, n = s.shape
    seen = np.zeros((b, n), dtype=bool)
    cycles = np.zeros(b, dtype=np.int64)
    rows = np.arange(b)
    for start in range(n):
        new = ~seen[:, start]
        cycles += new
        cur = np.full(b, start, dtype=np.int64)
        active = new.copy()
        # follow the cycle through ``start`` for rows where it is new
        while active.any():
            seen[rows[active], cur[active]] = True
            cur[active] = s[rows[active], cur[active]]
            active &= ~seen[rows, cur]
    return (n - cycles) % 2


def parity(perm: np.ndarray) -> int:
    """0 for an even permutation of ``0 .. N-1``, 1 for an odd one."""
    return int(parities(np.asarray(perm)[None, :])[0])
