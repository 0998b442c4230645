"""Numba kernels of the random walks of :mod:`learning.walks` on the CPU.

A walk step of ``learning.walks.TensorDomain._walk`` is a dozen small tensor operations on the
walkers still moving; a training batch of cube walks (1,000 walks of up to 30 moves) spent about
7 ms in them on one core, and a 24-puzzle batch (walks of up to 500 moves) about 40 ms. These
kernels make the same walks from the same random numbers, all drawn up front in one
``torch.rand`` call (the CPU generator fills a tensor in element order, so one call of
``sum(m_t) x A`` numbers gives the numbers of the per-step calls of ``m_t x A`` in turn): step
``t`` reads rows ``offsets[t] .. offsets[t] + m_t`` of ``u``, masks illegal moves and the undo
of the previous move with ``-1`` and takes the first maximum (``torch.argmax``'s rule), so the
batches are equal to the tensor loop's, bit for bit (tests compare them).

Walkers are in the tensor loop's order: deepest first, so the ``m_t`` still moving at step ``t``
are the first ``m_t`` rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _pick(u: np.ndarray, r: int, i: int, t: int, prev: np.ndarray, inverse: np.ndarray,
          backtrack: bool, legal: np.ndarray) -> int:
    """The first move of greatest ``u[r]`` among legal ones, the undo of ``prev[i]`` masked."""
    best = -np.inf
    choice = -1
    undo = -1 if backtrack or t == 0 else inverse[prev[i]]
    for a in range(u.shape[1]):
        v = u[r, a] if legal[a] else -1.0
        if a == undo:
            v = -1.0
        if v > best:
            best = v
            choice = a
    return choice


@njit(cache=True)
def permutation_walks(states: np.ndarray, u: np.ndarray, counts: np.ndarray, perms: np.ndarray,
                      inverse: np.ndarray, prev: np.ndarray, backtrack: bool, canonical: bool,
                      htm: bool, axis: np.ndarray, side: np.ndarray, turn: np.ndarray) -> None:
    """Cube walks in place: ``states (n, L)`` start at the goal, ``u (sum(counts), A)``;
    ``prev (n,)`` receives each walk's last move (``-1`` kept for walks of no move).

    ``canonical``: a move on the axis of the current run is legal only while the run's net turn
    of its face is 0 (or, in quarter turns, equal to the move's turn), as
    ``PermutationDomain._legal``."""
    n, length = states.shape
    num_moves = u.shape[1]
    run_axis = np.full(n, -1, np.int64)
    run_net = np.zeros((n, 2), np.int64)
    legal = np.ones(num_moves, np.bool_)
    tmp = np.empty(length, np.uint8)
    r = 0
    for t in range(counts.shape[0]):
        for i in range(counts[t]):
            if canonical:
                for a in range(num_moves):
                    if run_axis[i] == axis[a]:
                        net = run_net[i, side[a]]
                        legal[a] = net == 0 or (not htm and net == turn[a])
                    else:
                        legal[a] = True
            a = _pick(u, r, i, t, prev, inverse, backtrack, legal)
            for j in range(length):
                tmp[j] = states[i, perms[a, j]]
            for j in range(length):
                states[i, j] = tmp[j]
            if canonical:
                if run_axis[i] != axis[a]:
                    run_net[i, 0] = 0
                    run_net[i, 1] = 0
                run_axis[i] = axis[a]
                run_net[i, side[a]] += 1 if htm else turn[a]
            prev[i] = a
            r += 1


@njit(cache=True)
def tile_walks(states: np.ndarray, u: np.ndarray, counts: np.ndarray, moves: np.ndarray,
               inverse: np.ndarray, prev: np.ndarray, backtrack: bool, blank0: int) -> None:
    """Sliding-tile walks in place (``TilesDomain``): the blank starts on ``blank0``;
    ``moves[b, a]`` is the cell the blank moves to (``-1``: off the board)."""
    n = states.shape[0]
    num_moves = u.shape[1]
    blank = np.full(n, blank0, np.int64)
    legal = np.ones(num_moves, np.bool_)
    r = 0
    for t in range(counts.shape[0]):
        for i in range(counts[t]):
            b = blank[i]
            for a in range(num_moves):
                legal[a] = moves[b, a] >= 0
            a = _pick(u, r, i, t, prev, inverse, backtrack, legal)
            c = moves[b, a]
            states[i, b] = states[i, c]
            states[i, c] = 0
            blank[i] = c
            prev[i] = a
            r += 1
