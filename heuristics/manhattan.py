"""Manhattan distance and linear conflicts (Hansson, Mayer & Yung 1992) for sliding tiles.

``LinearConflict`` adds, for every row and column, 2 for each tile that must leave the line so
the tiles in their goal line can pass each other: the number of such tiles minus the longest
run of them already in goal order. Both are admissible; Manhattan distance is also consistent.
Both evaluate batches ``(B, N) uint8 -> (B,) int32`` and expose Numba IDA* specs.
"""

from __future__ import annotations

import time
from typing import Annotated, NamedTuple

import numpy as np

from core.errors import InputError
from heuristics import tiles_conflicts as _k
from heuristics.base import Arr, Heuristic, IdaSpec
from puzzles.base import Puzzle
from puzzles.npuzzle import NPuzzle


class TileDistanceTables(NamedTuple):
    """What the tiles IDA* searches of Manhattan distance and linear conflicts read."""

    #: ``(n, n)``: ``md[t, c]``, tile ``t``'s distance from cell ``c`` (blank-first layout)
    md: Annotated[np.ndarray, Arr("int32", 2)]


def tiles_puzzle_info(puzzle: Puzzle) -> tuple[int, str]:
    """``(width, layout)`` of a sliding-tile puzzle; ``InputError`` for other puzzles."""
    if not isinstance(puzzle, NPuzzle):
        raise InputError(f"heuristic: applies to sliding-tile puzzles, not {puzzle.name}")
    width = puzzle.width
    layout = puzzle.layout
    if layout not in ("blank-first", "blank-last"):
        raise InputError(f"heuristic: the {layout} goal is served by exact tables and table-driven "
                         "solvers, not by tile heuristics (use blank-first or blank-last)")
    return int(width), str(layout)


def canonical(states: np.ndarray, width: int, layout: str) -> np.ndarray:
    """``(B, N)`` states in the blank-first layout (``convert_layout`` for blank-last), uint8."""
    s = np.ascontiguousarray(np.atleast_2d(states), dtype=np.uint8)
    if layout == "blank-first":
        return s
    from puzzles.npuzzle import convert_layout

    return np.ascontiguousarray(convert_layout(s, width), dtype=np.uint8)


def check_states(states: np.ndarray, n: int) -> np.ndarray:
    s = np.asarray(states)
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2 or s.shape[1] != n:
        raise InputError(f"states: expected shape (B, {n}), got {np.asarray(states).shape}")
    if s.size and (s.min() < 0 or s.max() >= n):
        raise InputError(f"states: entries must lie in 0..{n - 1}")
    return s


class Manhattan(Heuristic):
    """Sum over tiles of the grid distance to the goal cell. ``(B, N) -> (B,)`` int32."""

    name = "manhattan"
    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle) -> None:
        super().__init__(puzzle)
        t0 = time.perf_counter()
        self.width, self.layout = tiles_puzzle_info(puzzle)
        self.n = self.width * self.width
        self.md = _k.manhattan_table(self.width)  # canonical (blank-first) layout
        self.load_seconds = time.perf_counter() - t0

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = canonical(check_states(states, self.n), self.width, self.layout)
        return self.md[s, np.arange(self.n)[None, :]].sum(axis=1, dtype=np.int32)

    @property
    def nbytes(self) -> int:
        return int(self.md.nbytes)

    def ida_spec(self) -> IdaSpec:
        return IdaSpec(family="tiles", kind="manhattan", tables=TileDistanceTables(md=self.md),
                       params={"width": self.width, "layout": self.layout})


class LinearConflict(Manhattan):
    """Manhattan distance + 2 per tile that must leave its row or column to let others pass."""

    name = "linear-conflict"
    admissible = True
    consistent = False  # not claimed

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = canonical(check_states(states, self.n), self.width, self.layout)
        return _k.linear_conflict_batch(s, self.width, self.md)

    def ida_spec(self) -> IdaSpec:
        return IdaSpec(family="tiles", kind="linear-conflict",
                       tables=TileDistanceTables(md=self.md),
                       params={"width": self.width, "layout": self.layout})
