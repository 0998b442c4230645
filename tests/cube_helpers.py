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
