"""Numba kernels for Sokoban: the random reverse walks of the training states.

Kernels take arrays and scalars only; ``puzzles.sokoban.Sokoban.reverse_walks`` draws the random
numbers from its numpy Generator and calls them. Cell codes are those of
``puzzles.sokoban_levels`` (module constants, compiled in as such).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzles.sokoban_levels import AGENT, AGENT_GOAL, BOX, BOX_GOAL, FLOOR, GOAL, WALL


@njit(cache=True)
def reverse_walk_steps(s: np.ndarray, agent: np.ndarray, depths: np.ndarray,
                       step1: np.ndarray, actions: np.ndarray, pulls: np.ndarray) -> None:
    """Walk every level of ``s (B, L)`` (uint8, changed in place) backwards: level ``i`` takes
    ``depths[i]`` random steps, step ``k`` in direction ``actions[i, k]``; a step into a wall or a
    box is lost, and a step away from a box pulls it along when ``pulls[i, k]`` is True.
    ``agent[i]`` is the agent's cell (changed in place); ``step1[c, a]`` the cell next to ``c`` in
    direction ``a`` (-1 off the board); directions pair up as ``a ^ 1``."""
    for i in range(s.shape[0]):
        ag = agent[i]
        for k in range(depths[i]):
            a = actions[i, k]
            t = step1[ag, a]
            if t < 0:
                continue
            ct = s[i, t]
            if ct == WALL or ct == BOX or ct == BOX_GOAL:
                continue
            behind = step1[ag, a ^ 1]
            pull = False
            if behind >= 0 and pulls[i, k]:
                cb = s[i, behind]
                pull = cb == BOX or cb == BOX_GOAL
            s[i, ag] = GOAL if s[i, ag] == AGENT_GOAL else FLOOR
            if pull:
                s[i, ag] = BOX_GOAL if s[i, ag] == GOAL else BOX
                s[i, behind] = GOAL if s[i, behind] == BOX_GOAL else FLOOR
            s[i, t] = AGENT_GOAL if s[i, t] == GOAL else AGENT
            ag = t
        agent[i] = ag
