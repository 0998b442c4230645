"""The gap heuristic (Helmert 2010): every flip changes at most one adjacency, so the number of
adjacent pancakes whose sizes differ by more than one (with the plate below the stack counted as
size ``n``) is a consistent lower bound."""

from __future__ import annotations

import numpy as np

from heuristics.base import Heuristic


class GapHeuristic(Heuristic):
    name = "pancake-gap"
    admissible = True
    consistent = True

    def __init__(self, puzzle, plate: bool = True) -> None:
        super().__init__(puzzle)
        self.plate = plate

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = np.atleast_2d(states).astype(np.int16)
        if self.plate:
            s = np.concatenate([s, np.full((s.shape[0], 1), self.puzzle.n, np.int16)], axis=1)
        return (np.abs(np.diff(s, axis=1)) != 1).sum(axis=1).astype(np.int64)
