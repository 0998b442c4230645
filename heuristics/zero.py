"""The ``zero`` heuristic: ``h = 0`` for every state (blind search).

Under A* it is uniform-cost search, under greedy and beam search a blind one. Solvers that use no
heuristic at all (the table-driven ``gf2``, ``macro`` and ``lvi``) run with it by default, so a
row of theirs names no estimate they did not use.
"""

from __future__ import annotations

import numpy as np

from heuristics.base import Heuristic


class Zero(Heuristic):
    """``h(s) = 0``: admissible and consistent on every puzzle."""

    name = "zero"
    admissible = True
    consistent = True

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = np.asarray(states)
        n = 1 if s.ndim == 1 else s.shape[0]
        return np.zeros(n, dtype=np.int64)
