"""The ``davi-multigoal`` heuristic: the combined estimate of a tree of goal networks (the tree and
its training: :mod:`learning.multigoal`)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from core import registry
from core.errors import InputError
from heuristics.base import Heuristic
from learning.multigoal import TREE_FILE, GoalTree
from puzzles.base import Puzzle


class MultiGoalHeuristic(Heuristic):
    """``davi-multigoal``: the combined estimate of a tree of goal networks."""

    name = "davi-multigoal"
    admissible = False
    consistent = False

    def __init__(self, puzzle: Puzzle, model: str | Path | None = None, device: str | None = None,
                 precision: str | None = None, combine: str | None = None,
                 m: float | None = None) -> None:
        from heuristics.value_net import ValueNetHeuristic

        super().__init__(puzzle)
        t0 = time.perf_counter()
        # bounds and defaults: the registry's entry, their one statement
        args = registry.heuristic_entry("davi-multigoal").settings(
            {"device": device, "precision": precision, "combine": combine, "m": m}, "heuristic")
        device, precision, combine, m = (args[k] for k in ("device", "precision", "combine", "m"))
        if model is None:
            raise InputError("--model: davi-multigoal needs a multi-goal model folder "
                             "(bench train multigoal)")
        folder = Path(model).expanduser()
        self.tree = GoalTree.load(folder)
        if self.tree.puzzle != puzzle.name or \
                (self.tree.layout or None) != (puzzle.layout or None):
            raise InputError(f"--model: {folder} is a tree for {self.tree.puzzle}"
                             f"{' (' + str(self.tree.layout) + ')' if self.tree.layout else ''}, "
                             f"not for {puzzle.name}")
        goals = self.tree.goals
        if goals.ndim != 2 or goals.shape[1] != puzzle.state_dim \
                or len(self.tree.paths) != len(goals):
            raise InputError(f"--model: {folder}: its {TREE_FILE} does not hold one "
                             f"{puzzle.name} state and one path per goal")
        if not np.array_equal(self.tree.goals[0], puzzle.goal()):
            raise InputError(f"--model: {folder}: its final goal is not {puzzle.name}'s goal")
        for i, (goal, path) in enumerate(zip(goals, self.tree.paths, strict=True)):
            # a search that reaches goal i appends its path: it must lead to the final goal
            if not all(isinstance(a, int) for a in path) or \
                    not puzzle.check_solution(goal.astype(puzzle.dtype), path):
                raise InputError(f"--model: {folder}: the stored path of goal {i} does not lead "
                                 f"to the final goal ({TREE_FILE} is damaged)")
        self.combine, self.m = combine, float(m)
        self.nets = []
        for i, goal in enumerate(self.tree.goals):
            run = folder / f"g{i}"
            if not run.is_dir():
                raise InputError(f"--model: {folder} lacks goal {i}'s network ({run.name}/)")
            self.nets.append(ValueNetHeuristic(puzzle.with_goal(goal), model=run, device=device,
                                              precision=precision))
        self.trained_target = self.nets[0].trained_target if self.nets else None
        self.d = self.tree.distances
        self.network_evaluations = 0  # one per state and goal network
        self.load_seconds = time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return sum(n.nbytes for n in self.nets)

    def goal_values(self, states: np.ndarray) -> np.ndarray:
        """``(G, B)``: each goal network's estimate of the distance to its goal."""
        return np.stack([net(states) for net in self.nets])

    def __call__(self, states: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(np.asarray(states))
        f = self.goal_values(states)
        self.network_evaluations += states.shape[0] * len(self.nets)
        if self.combine == "sum":
            h = (f + self.d[:, None]).min(axis=0)
        else:
            far = self.d > 0  # the final goal's term would divide by zero
            h = (f[far] / (self.m * self.d[far, None])).min(axis=0) if far.any() \
                else f.min(axis=0)
        h = h.astype(np.float32)
        h[self.puzzle.is_goal(states)] = 0.0
        return h

    def extra_goals(self) -> tuple[np.ndarray, list[list[int]]]:
        """The tree's goals other than the final one, and each one's path to it: a search may
        stop at any of them and append the path."""
        return self.tree.goals[1:], self.tree.paths[1:]
