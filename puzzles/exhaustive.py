"""Exact distances for small sliding-tile puzzles by exhaustive breadth-first search.

``puzzle8_distances(layout)`` is the distance to the goal of every 8-puzzle state (181,440 of the
9! permutations are reachable; the farthest are 31 moves away), indexed by the lexicographic rank
of the state (``perm_ranks``). It takes well under a second once the kernels are compiled and is
cached per process; the arrays are read-only.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from core.capabilities import HasDistanceTable
from core.errors import InputError
from puzzles.npuzzle import NPuzzle, _check_width, blank_moves_table, goal_state


def _as_perms(states: np.ndarray) -> np.ndarray:
    s = np.atleast_2d(np.asarray(states))
    if s.ndim != 2:
        raise InputError(f"states: expected shape (B, n), got {s.shape}")
    n = s.shape[1]
    if not 1 <= n <= 20:
        raise InputError(f"states: permutations of 1..20 items can be ranked in int64, got {n}")
    if not np.issubdtype(s.dtype, np.integer):
        raise InputError(f"states: expected integers, got dtype {s.dtype}")
    if s.size and not (np.sort(s, axis=1) == np.arange(n)[None, :]).all():
        raise InputError("states: every row must be a permutation of 0..n-1")
    return np.ascontiguousarray(s, dtype=np.uint8)


def perm_ranks(states: np.ndarray) -> np.ndarray:
    """Lexicographic ranks of permutations: ``(B, n) -> (B,)`` int64 (``(n,)`` -> ``(1,)``)."""
    from puzzles.perm_ranks import rank_partial_batch

    perms = _as_perms(states)
    return rank_partial_batch(perms, perms.shape[1])


def perm_unranks(ranks: np.ndarray, n: int) -> np.ndarray:
    """Permutations of lexicographic ``ranks`` (B,): ``(B, n)`` uint8."""
    from puzzles.perm_ranks import perm_unrank_batch

    r = np.atleast_1d(np.asarray(ranks, dtype=np.int64))
    if r.ndim != 1:
        raise InputError(f"ranks: expected shape (B,), got {r.shape}")
    if r.size and (r.min() < 0 or r.max() >= math.factorial(n)):
        raise InputError(f"ranks: must lie in 0..{n}!-1")
    out = np.empty((r.shape[0], n), dtype=np.uint8)
    perm_unrank_batch(r, n, out)
    return out


def tile_distances(width: int, layout: str = "blank-last") -> np.ndarray:
    """BFS distance of every permutation to the goal: ``(N!,)`` int8, -1 where unreachable.

    Feasible for ``width <= 3`` (9! = 362,880 entries); larger boards are refused.
    """
    width = _check_width(width)
    if width > 3:
        raise InputError(f"width: exhaustive search is limited to width <= 3, got {width}")
    return _tile_distances(width, layout)


@cache
def _tile_distances(width: int, layout: str) -> np.ndarray:
    from puzzles._tiles_bfs import bfs_distances

    n = width * width
    dist = np.full(math.factorial(n), -1, dtype=np.int8)
    bfs_distances(goal_state(width, layout), np.ascontiguousarray(blank_moves_table(width)), dist)
    dist.setflags(write=False)
    return dist


def puzzle8_distances(layout: str = "blank-last") -> np.ndarray:
    """Distance to the ``layout`` goal of every 8-puzzle state, ``(362880,)`` int8 by ``perm_ranks``.

    Unreachable permutations (the other parity class) hold -1.
    """
    return tile_distances(3, layout)


def _small_tiles(puzzle: object) -> NPuzzle | None:
    """``puzzle`` where it is the 3x3 sliding-tile puzzle (the largest whose table fits)."""
    return puzzle if isinstance(puzzle, NPuzzle) and puzzle.width == 3 else None


def has_table(puzzle: object) -> bool:
    """Whether :func:`table_distances` answers for ``puzzle``."""
    return isinstance(puzzle, HasDistanceTable) or _small_tiles(puzzle) is not None


def table_distances(puzzle: object, states: np.ndarray) -> np.ndarray | None:
    """Exact distances ``(n,)`` int64 of ``states`` from a complete distance table, or None.

    Tables exist for puzzles with their own (:class:`core.capabilities.HasDistanceTable`: the
    2x2x2 cube) and for the 3x3 sliding tiles (:func:`tile_distances`, either goal layout).
    """
    if isinstance(puzzle, HasDistanceTable):
        return np.asarray(puzzle.distance_table())[puzzle.index(states)].astype(np.int64)
    tiles = _small_tiles(puzzle)
    if tiles is not None:
        table = np.asarray(tile_distances(tiles.width, tiles.layout))
        return table[perm_ranks(states)].astype(np.int64)
    return None


def all_distances(puzzle: object) -> tuple[np.ndarray, np.ndarray] | None:
    """Every reachable state with its distance, ``(states (S, L), dist (S,))``, where
    :func:`table_distances` answers; else None."""
    if isinstance(puzzle, HasDistanceTable):
        dist = np.asarray(puzzle.distance_table())
        idx = np.flatnonzero(dist >= 0)
        return puzzle.from_index(idx), dist[idx].astype(np.int64)
    tiles = _small_tiles(puzzle)
    if tiles is not None:
        dist = np.asarray(tile_distances(tiles.width, tiles.layout))
        idx = np.flatnonzero(dist >= 0)
        return perm_unranks(idx, tiles.size).astype(np.uint8), dist[idx].astype(np.int64)
    return None
