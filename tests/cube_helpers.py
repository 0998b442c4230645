"""Exact distances near the solved cube, for the cube PDB and IDA* tests."""

from __future__ import annotations

import numpy as np


def bfs_ball(puzzle, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Every state within ``depth`` moves of the goal and its exact distance (facelet BFS)."""
    goal = puzzle.goal()[None, :]
    seen = {goal.tobytes()}
    layers, frontier = [goal], goal
    for _ in range(depth):
        children, _ = puzzle.expand(frontier)
        children = np.unique(children.reshape(-1, puzzle.state_dim), axis=0)
        fresh = [c for c in children if c.tobytes() not in seen]
        seen.update(c.tobytes() for c in fresh)
        frontier = np.array(fresh)
        layers.append(frontier)
    states = np.concatenate(layers)
    dist = np.concatenate([np.full(len(x), d) for d, x in enumerate(layers)])
    return states, dist


def exact_distance(puzzle, state: np.ndarray, goal_ball: dict[bytes, int], radius: int,
                   ball_radius: int) -> int | None:
    """Exact distance of ``state`` when it is at most ``radius + ball_radius``, else ``None``.

    Meet in the middle: every shortest path of length ``<= radius + ball_radius`` passes
    through a state ``x`` with ``d(state, x) <= radius`` and ``d(x, goal) <= ball_radius``, so
    the distance is ``min d(state, x) + goal_ball[x]`` over the ``radius`` ball around ``state``
    (``goal_ball``: state bytes -> distance, every state within ``ball_radius`` of the goal).
    """
    best = goal_ball.get(state.tobytes())
    seen = {state.tobytes()}
    frontier = state[None, :]
    for d in range(1, radius + 1):
        children, _ = puzzle.expand(frontier)
        children = np.unique(children.reshape(-1, puzzle.state_dim), axis=0)
        fresh = [c for c in children if c.tobytes() not in seen]
        seen.update(c.tobytes() for c in fresh)
        for c in fresh:
            g = goal_ball.get(c.tobytes())
            if g is not None and (best is None or d + g < best):
                best = d + g
        frontier = np.array(fresh)
    return best
