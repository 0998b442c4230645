"""Multi-goal DeepCubeA (Moravej): a tree of intermediate goals, one network per goal.

The tree is grown from the final goal: every node of the first ``height`` levels gets
``children`` children, each the end of a random walk of ``step`` moves from its parent (walks
never undo their last move; a child that repeats a goal already in the tree is drawn again). Each
goal keeps the path from it to the final goal (its walk undone, then its parent's path): the
report's path^j; ``d_i`` is that path's length.

Training gives every goal its own network, trained (DAVI, or diffusion distance) only on
states near that goal: walks of at most ``k_max`` moves from it. The total number of iterations
is split evenly over the networks, so a tree costs what one network of the same total
iterations costs.

The combined heuristic (``davi-multigoal``) estimates the distance to the final goal through
the best goal:

* ``combine="sum"`` (default): ``h(s) = min_i (f_i(s) + d_i)``;
* ``combine="ratio"``: the report's ``h(s) = min_i f_i(s) / (m d_i)`` with ``m > 0`` (option
  ``m``); it divides by zero at the final goal (``d = 0``), whose term is therefore left out, and
  it favours goals far from the final goal.

Search: a search with this heuristic also stops at any goal of the tree and appends that goal's
stored path (``extra_goals``), so the returned path ends at the final goal and is replayed like
any other. Files: ``FOLDER/tree.json`` (the goals, parents, paths) and ``FOLDER/gI/`` (goal I's
training run, ``model.pt``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core import safe_write
from core.errors import InputError
from puzzles.base import Puzzle

TREE_FILE = "tree.json"


@dataclass
class GoalTree:
    """The goals (goal 0 is the final goal), their parents, and each one's path to goal 0."""

    puzzle: str
    layout: str | None
    goals: np.ndarray  #: (G, L)
    parent: list[int]
    paths: list[list[int]]
    children: int
    height: int
    step: int

    @property
    def distances(self) -> np.ndarray:
        return np.array([len(p) for p in self.paths], dtype=np.float32)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        data = {"puzzle": self.puzzle, "layout": self.layout, "children": self.children,
                "height": self.height, "step": self.step,
                "goals": [[int(v) for v in g] for g in self.goals], "parent": self.parent,
                "paths": self.paths}
        safe_write.write_text(folder / TREE_FILE, json.dumps(data), arg="--out")

    @classmethod
    def load(cls, folder: Path) -> GoalTree:
        path = Path(folder) / TREE_FILE
        if not path.is_file():
            raise InputError(f"--model: {folder} holds no {TREE_FILE} (not a multi-goal model)")
        try:
            d = json.loads(path.read_text())
            return cls(d["puzzle"], d.get("layout"), np.asarray(d["goals"], dtype=np.uint8),
                       list(d["parent"]), [list(p) for p in d["paths"]], int(d["children"]),
                       int(d["height"]), int(d["step"]))
        except (ValueError, KeyError, TypeError, IndexError, OverflowError, RecursionError,
                OSError) as exc:  # a tree file edited by hand or damaged
            raise InputError(f"--model: {path} is damaged ({type(exc).__name__})") from None


def tree_files(puzzle_name: str, model: str | Path | None) -> list[Path]:
    """The files a multi-goal model loads (its tree and every goal's network), for a row's model
    digest; none without a model folder."""
    if model is None:
        return []
    folder = Path(str(model)).expanduser()
    return sorted(f for f in folder.rglob("*") if f.is_file()
                  and (f.suffix == ".pt" or f.name == TREE_FILE))


def grow_tree(puzzle: Puzzle, children: int, height: int, step: int,
              rng: np.random.Generator) -> GoalTree:
    """Grow a goal tree from the final goal (see the module text)."""
    for name, v, lo in (("--children", children, 1), ("--height", height, 1), ("--step", step, 1)):
        if not isinstance(v, int) or v < lo:
            raise InputError(f"{name}: must be an integer >= {lo}, got {v!r}")
    if children ** height > 4096:
        raise InputError(f"--children/--height: {children}^{height} goals is more than 4,096")
    goals = [puzzle.goal()]
    parent, level = [-1], [0]
    paths: list[list[int]] = [[]]
    seen = {puzzle.goal().tobytes()}
    inverse = [puzzle.inverse_action(a) for a in range(puzzle.num_actions)]
    for node in range(10**9):
        if node >= len(goals):
            break
        if level[node] >= height:
            continue
        made = 0
        for _ in range(1000 * children):
            if made == children:
                break
            state, walk, prev = goals[node].copy(), [], -1
            for _ in range(step):
                legal = [int(a) for a in puzzle.legal_actions(state)
                         if prev < 0 or a != inverse[prev]]
                a = legal[int(rng.integers(len(legal)))]
                state = puzzle.apply(state[None, :], np.array([a]))[0]
                walk.append(a)
                prev = a
            if state.tobytes() in seen:
                continue
            seen.add(state.tobytes())
            goals.append(state)
            parent.append(node)
            level.append(level[node] + 1)
            paths.append([inverse[a] for a in reversed(walk)] + paths[node])
            made += 1
        if made < children:
            raise InputError(f"--step: walks of {step} moves find too few distinct goals")
    return GoalTree(puzzle.name, puzzle.layout, np.stack(goals), parent, paths,
                    children, height, step)


def train_tree(puzzle: Puzzle, tree: GoalTree, cfg: Any, folder: Path, iterations: int,
               progress: bool = False, max_cpu_seconds: float | None = None) -> list[dict]:
    """Train one network per goal for ``iterations // G`` iterations each (resuming runs that
    exist), ``max_cpu_seconds`` likewise split; returns each run's last metrics."""
    from learning.trainer import Trainer

    tree.save(folder)
    g = len(tree.goals)
    share = max(1, iterations // g)
    cpu = None if max_cpu_seconds is None else max_cpu_seconds / g
    out = []
    for i, goal in enumerate(tree.goals):
        sub = puzzle.with_goal(goal)
        run = folder / f"g{i}"
        if (run / "checkpoint.pt").is_file():
            trainer = Trainer.resume(run, puzzle=sub, progress=progress)
        else:
            trainer = Trainer(copy.deepcopy(cfg), run, puzzle=sub, progress=progress)
        left = max(0, share - trainer.iteration)
        metrics = trainer.train(left, max_cpu_seconds=cpu) if left else dict(trainer.metrics)
        out.append({"goal": i, "iteration": trainer.iteration, **metrics})
    return out
