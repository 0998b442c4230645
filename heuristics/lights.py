"""The ``lights-on`` heuristic for Lights Out: ``ceil(lights on / 5)``.

One press toggles at most 5 lights (the cell and its 4 neighbours), so at least
``ceil(on / 5)`` presses remain: the heuristic is admissible. One press changes the number of
lights on by at most 5, so ``h`` changes by at most 1 per unit-cost move: it is consistent.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from heuristics.base import Heuristic, IdaSpec
from puzzles.base import Puzzle
from puzzles.lightsout import LightsOut


class LightsOn(Heuristic):
    """``h(s) = ceil(sum(s) / 5)`` on a Lights Out puzzle."""

    name = "lights-on"
    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle) -> None:
        if not isinstance(puzzle, LightsOut):
            raise InputError(f"--heuristic: lights-on applies to Lights Out, not {puzzle.name}")
        super().__init__(puzzle)
        self.size = puzzle.size

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B, m)`` 0/1 -> ``(B,)`` int64 (``(m,)`` is treated as a batch of one)."""
        s = np.atleast_2d(np.asarray(states))
        if s.ndim != 2 or s.shape[1] != self.puzzle.state_dim:
            raise ValueError(
                f"lights-on: states must have shape (B, {self.puzzle.state_dim}), got {s.shape}"
            )
        on = s.sum(axis=1, dtype=np.int64)
        return (on + 4) // 5

    def ida_spec(self) -> IdaSpec:
        return IdaSpec(family="lights", kind="lights-on", params={"size": self.size})
