"""Numba kernels for Sokoban: the random reverse walks of the training states (of value
networks, and labelled with the move that undoes their last step for move prediction).

Kernels take arrays and scalars only; ``puzzles.sokoban.Sokoban.reverse_walks`` draws the random
numbers from its numpy Generator and calls them. Cell codes are those of
``puzzles.sokoban_levels`` (module constants, compiled in as such).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzles.sokoban_levels import AGENT, AGENT_GOAL, BOX, BOX_GOAL, FLOOR, GOAL, WALL


@njit(cache=True)
def _reverse_target(row: np.ndarray, ag: int, a: int, want_pull: bool,
                    step1: np.ndarray) -> tuple[int, int]:
    """One reverse step of the agent at ``ag`` in direction ``a`` on level ``row``: ``(t, b)``,
    the agent's new cell (-1: the step is lost, a wall, a box or the edge is in the way) and the
    cell of the box it pulls along (-1: none; only when ``want_pull`` and a box is behind)."""
    t = step1[ag, a]
    if t < 0:
        return -1, -1
    ct = row[t]
    if ct == WALL or ct == BOX or ct == BOX_GOAL:
        return -1, -1
    behind = step1[ag, a ^ 1]
    if want_pull and behind >= 0 and (row[behind] == BOX or row[behind] == BOX_GOAL):
        return t, behind
    return t, -1


@njit(cache=True)
def _reverse_apply(row: np.ndarray, ag: int, t: int, behind: int) -> None:
    """Move the agent of ``row`` from ``ag`` to ``t``, pulling the box at ``behind`` (>= 0)
    into ``ag``."""
    row[ag] = GOAL if row[ag] == AGENT_GOAL else FLOOR
    if behind >= 0:
        row[ag] = BOX_GOAL if row[ag] == GOAL else BOX
        row[behind] = GOAL if row[behind] == BOX_GOAL else FLOOR
    row[t] = AGENT_GOAL if row[t] == GOAL else AGENT


@njit(cache=True)
def _can_leave(row: np.ndarray, ag: int, back: int, step1: np.ndarray) -> bool:
    """Whether the agent at ``ag`` can step in a direction other than ``back``."""
    for a in range(4):
        if a != back and _reverse_target(row, ag, a, False, step1)[0] >= 0:
            return True
    return False


@njit(cache=True)
def _walk(s: np.ndarray, agent: np.ndarray, depths: np.ndarray, step1: np.ndarray,
          actions: np.ndarray, pulls: np.ndarray, no_undo: bool, taken: np.ndarray,
          last: np.ndarray) -> None:
    """The walks of ``reverse_walk_steps``; with ``no_undo`` a step that would undo the step
    before it (the opposite direction, pulling nothing) is lost too unless it is the only way
    out (a dead end). ``taken[i]``, ``last[i]`` (out): the steps taken and the direction of the
    last one (-1: none)."""
    for i in range(s.shape[0]):
        ag = agent[i]
        prev = -1
        n = 0
        for k in range(depths[i]):
            a = actions[i, k]
            t, behind = _reverse_target(s[i], ag, a, pulls[i, k], step1)
            if t < 0:
                continue
            if (no_undo and prev >= 0 and a == (prev ^ 1) and behind < 0
                    and _can_leave(s[i], ag, a, step1)):
                continue
            _reverse_apply(s[i], ag, t, behind)
            ag = t
            prev = a
            n += 1
        agent[i] = ag
        taken[i] = n
        last[i] = prev


@njit(cache=True)
def reverse_walk_steps(s: np.ndarray, agent: np.ndarray, depths: np.ndarray,
                       step1: np.ndarray, actions: np.ndarray, pulls: np.ndarray) -> None:
    """Walk every level of ``s (B, L)`` (uint8, changed in place) backwards: level ``i`` takes
    ``depths[i]`` random steps, step ``k`` in direction ``actions[i, k]``; a step into a wall or a
    box is lost, and a step away from a box pulls it along when ``pulls[i, k]`` is True.
    ``agent[i]`` is the agent's cell (changed in place); ``step1[c, a]`` the cell next to ``c`` in
    direction ``a`` (-1 off the board); directions pair up as ``a ^ 1``."""
    n = s.shape[0]
    _walk(s, agent, depths, step1, actions, pulls, False, np.empty(n, np.int64),
          np.empty(n, np.int64))


@njit(cache=True)
def labelled_reverse_walk_steps(s: np.ndarray, agent: np.ndarray, depths: np.ndarray,
                                step1: np.ndarray, actions: np.ndarray, pulls: np.ndarray,
                                taken: np.ndarray, last: np.ndarray) -> None:
    """The reverse walks of move-prediction training: as ``reverse_walk_steps`` (level ``i``
    draws ``depths[i]`` steps, ``actions[i, k]`` and ``pulls[i, k]``; a step into a wall or a box
    is lost), and a step that would undo the step before it (the opposite direction, pulling
    nothing) is lost too unless it is the only way out (a dead end). ``taken[i]`` (out): the
    steps taken; ``last[i]`` (out): the direction of the last one (-1: none). The forward move
    ``last[i] ^ 1`` undoes it (it pushes back the box the step pulled)."""
    _walk(s, agent, depths, step1, actions, pulls, True, taken, last)
