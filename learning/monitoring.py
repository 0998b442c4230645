"""Monitoring of a training run: the columns of its logs, the fixed held-out scrambles and the
batched greedy rollouts that measure a value network or a policy (DeepCubeA's Figure 3).

``log.csv``
    ``iteration, loss, lr, target_updates, states_per_s, seconds`` (loss: mean over the
    iterations since the previous row; states_per_s: training states per wall-clock second).
``depth_log.csv``
    ``iteration, depth, mean_pred, greedy_solved``: on a fixed held-out set of scrambles per
    depth, the mean predicted cost-to-go (a policy: the mean probability of the correct moves)
    and the share a greedy rollout solves (at most ``min(2 * depth + 10, eval_max_steps)``
    steps, each to the child of least ``1 + J``, or a policy's most probable move).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from learning.data import random_walks
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.train_config import TrainConfig

LOG_COLUMNS = ("iteration", "loss", "lr", "target_updates", "states_per_s", "seconds")
DEPTH_COLUMNS = ("iteration", "depth", "mean_pred", "greedy_solved")



def _rollout(puzzle: Puzzle, states: np.ndarray, max_steps: int | np.ndarray,
             step: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Batched rollout: ``step(live states) -> (next states, reached the goal)`` moves every
    unsolved state once per step. ``max_steps``: one limit or one per state ``(B,)``. Returns
    ``(B,)`` bool: reached the goal within its step limit."""
    cur = np.array(states, copy=True)
    limit = np.broadcast_to(np.asarray(max_steps, dtype=np.int64), (cur.shape[0],))
    solved = puzzle.is_goal(cur)
    for i in range(int(limit.max(initial=0))):
        live = np.flatnonzero(~solved & (limit > i))
        if live.size == 0:
            break
        cur[live], solved[live] = step(cur[live])
    return solved


def greedy_rollout(puzzle: Puzzle, value_fn: Callable[[np.ndarray], np.ndarray],
                   states: np.ndarray, max_steps: int | np.ndarray) -> np.ndarray:
    """Batched greedy search: each step moves every unsolved state to its child of least
    ``1 + J`` (goal children count 0). ``max_steps``: one limit or one per state ``(B,)``.
    Returns ``(B,)`` bool: reached the goal within its step limit."""

    def step(live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        children, valid = puzzle.expand(live)
        b, a, length = children.shape
        flat = children.reshape(b * a, length)
        goal = puzzle.is_goal(flat).reshape(b, a)
        j = np.asarray(value_fn(flat), dtype=np.float64).reshape(b, a)
        j[goal] = -1.0  # a goal child is always taken
        j[~valid] = np.inf
        best = np.argmin(j, axis=1)
        return children[np.arange(b), best], goal[np.arange(b), best]

    return _rollout(puzzle, states, max_steps, step)


def policy_rollout(puzzle: Puzzle, logp_fn: Callable[[np.ndarray], np.ndarray],
                   states: np.ndarray, max_steps: int | np.ndarray) -> np.ndarray:
    """Batched greedy rollout of a policy: each step plays every unsolved state's most probable
    legal move. ``max_steps``: one limit or one per state. Returns ``(B,)`` bool: solved."""

    def step(live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nxt = puzzle.apply(live, np.argmax(logp_fn(live), axis=1))
        return nxt, puzzle.is_goal(nxt)

    return _rollout(puzzle, states, max_steps, step)


def heldout_set(puzzle: Puzzle, cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out scrambles: ``(depths (D,), states (D, n, L))`` over ``eval_depths`` depths."""
    assert cfg.k_max is not None
    depths = np.unique(np.linspace(1, cfg.k_max, min(cfg.eval_depths, cfg.k_max)).round().astype(int))
    rng = np.random.default_rng([cfg.seed, 2**31 - 1])  # apart from every training batch's stream
    n = cfg.eval_per_depth
    states = random_walks(puzzle, np.repeat(depths, n), rng, backtrack=cfg.backtrack)
    return depths, states.reshape(len(depths), n, -1)
