"""Classic Sokoban heuristics: push distances to the goals.

For each level (its walls and goals: a cache keyed by them, so a search over one level computes
them once) a backwards breadth-first search from every goal gives, for every cell, the fewest
pushes that take a box there to that goal, ignoring the other boxes and where the agent stands
(a push needs the cell behind the box free of walls). A cell from which no goal can be reached is
a dead square: a box there can never be placed, and the state's value is infinite.

* ``sokoban-push``: the sum over boxes of the pushes to the nearest goal.
* ``sokoban-matching``: the cost of the best assignment of boxes to distinct goals (Hungarian
  algorithm, ``scipy.optimize.linear_sum_assignment``); never less than ``sokoban-push``.

Both are lower bounds on the pushes a solution needs, and so on its moves (every push is a
move; walking between pushes is not counted): admissible. One move pushes at most one box one
cell, which changes either value by at most one: consistent.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from core.errors import InputError
from heuristics.base import Heuristic
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from puzzles.sokoban import Sokoban

INF = np.inf
_LEVELS_KEPT = 256


def push_distances(puzzle: Sokoban, walls: np.ndarray, goals: np.ndarray) -> np.ndarray:
    """``(goals, cells)``: pushes from each cell to each goal (``inf`` where none)."""
    step = puzzle.step1
    n_cells = walls.size
    out = np.full((len(goals), n_cells), INF)
    for gi, g in enumerate(goals):
        out[gi, g] = 0
        queue = deque([int(g)])
        while queue:
            y = queue.popleft()
            for a in range(4):  # a box pushed in direction a arrives at y from x = y - a
                back = a ^ 1
                x = int(step[y, back])
                if x < 0 or walls[x]:
                    continue
                stand = int(step[x, back])  # the agent pushes from behind the box
                if stand < 0 or walls[stand] or out[gi, x] <= out[gi, y] + 1:
                    continue
                out[gi, x] = out[gi, y] + 1
                queue.append(x)
    return out


class _SokobanHeuristic(Heuristic):
    admissible = True
    infinite_ok = True  # inf: a dead state, from which no solution exists
    consistent = True

    def __init__(self, puzzle: Puzzle) -> None:
        from puzzles.sokoban import Sokoban

        if not isinstance(puzzle, Sokoban):
            raise InputError(f"--heuristic: {self.name} applies to Sokoban, not {puzzle.name}")
        super().__init__(puzzle)
        self._sokoban = puzzle
        self._levels: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def _level(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(goal cells, push distances) of the level ``state`` is on."""
        from puzzles.sokoban import WALL, is_goal_code

        walls = state == WALL
        goals = np.flatnonzero(is_goal_code(state))
        key = walls.tobytes() + goals.tobytes()
        hit = self._levels.get(key)
        if hit is None:
            if len(self._levels) >= _LEVELS_KEPT:
                self._levels.pop(next(iter(self._levels)))
            hit = (goals, push_distances(self._sokoban, walls, goals))
            self._levels[key] = hit
        return hit

    def _cost(self, dist: np.ndarray, boxes: np.ndarray) -> float:
        raise NotImplementedError

    def __call__(self, states: np.ndarray) -> np.ndarray:
        from puzzles.sokoban import BOX, BOX_GOAL

        s = np.atleast_2d(np.asarray(states))
        out = np.empty(s.shape[0], dtype=np.float64)
        for i, st in enumerate(s):
            _, dist = self._level(st)
            boxes = np.flatnonzero((st == BOX) | (st == BOX_GOAL))
            out[i] = self._cost(dist, boxes)
        return out


class PushDistance(_SokobanHeuristic):
    """Sum over boxes of the pushes to the nearest goal."""

    name = "sokoban-push"

    def _cost(self, dist: np.ndarray, boxes: np.ndarray) -> float:
        return float(dist[:, boxes].min(axis=0).sum())


class PushMatching(_SokobanHeuristic):
    """Pushes of the best assignment of boxes to distinct goals."""

    name = "sokoban-matching"

    def _cost(self, dist: np.ndarray, boxes: np.ndarray) -> float:
        from scipy.optimize import linear_sum_assignment

        cost = dist[:, boxes].T  # (boxes, goals)
        if not np.isfinite(cost.min(axis=1)).all():
            return INF
        big = 1e6
        rows, cols = linear_sum_assignment(np.where(np.isfinite(cost), cost, big))
        total = cost[rows, cols].sum()
        return float(total) if np.isfinite(total) else INF
