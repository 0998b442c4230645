"""Exhaustive BFS of the 8-puzzle, permutation ranking against a naive reference."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.errors import InputError
from puzzles.exhaustive import perm_ranks, perm_unranks, puzzle8_distances, tile_distances
from puzzles.npuzzle import NPuzzle, convert_layout, goal_state, solvable


def naive_rank(perm) -> int:
    """Lexicographic rank by counting, for each position, the smaller unused values."""
    rest = sorted(perm)
    rank = 0
    for i, v in enumerate(perm):
        k = rest.index(v)
        rank += k * math.factorial(len(perm) - 1 - i)
        rest.pop(k)
    return rank


def naive_bfs(width: int, layout: str) -> dict[bytes, int]:
    p = NPuzzle(width, goal=layout)
    g = p.goal()
    dist = {g.tobytes(): 0}
    frontier = [g]
    while frontier:
        nxt = []
        for s in frontier:
            ch, va = p.expand(s[None, :])
            for c in ch[0][va[0]]:
                if c.tobytes() not in dist:
                    dist[c.tobytes()] = dist[s.tobytes()] + 1
                    nxt.append(c)
        frontier = nxt
    return dist


@pytest.mark.nojit
def test_rank_matches_naive_on_all_permutations_of_5():
    perms = np.array(list(itertools.permutations(range(5))), dtype=np.uint8)
    ranks = perm_ranks(perms)
    np.testing.assert_array_equal(ranks, [naive_rank(list(q)) for q in perms])
    np.testing.assert_array_equal(ranks, np.arange(120))  # itertools order is lexicographic
    np.testing.assert_array_equal(perm_unranks(ranks, 5), perms)


def test_rank_matches_naive_on_random_16():
    rng = np.random.default_rng(0)
    perms = np.array([rng.permutation(16) for _ in range(200)], dtype=np.uint8)
    ranks = perm_ranks(perms)
    np.testing.assert_array_equal(ranks, [naive_rank(list(q)) for q in perms])
    np.testing.assert_array_equal(perm_unranks(ranks, 16), perms)


@pytest.mark.nojit
@pytest.mark.parametrize("layout", ["blank-last", "blank-first"])
def test_2x2_bfs_matches_naive(layout):
    dist = tile_distances(2, layout)
    ref = naive_bfs(2, layout)
    assert (dist >= 0).sum() == len(ref) == 12
    for key, d in ref.items():
        assert dist[perm_ranks(np.frombuffer(key, dtype=np.uint8))[0]] == d


def test_rank_wrapper_rejects_bad_input():
    with pytest.raises(InputError, match="permutation"):
        perm_ranks(np.array([[0, 0, 1]]))
    with pytest.raises(InputError, match="ranks"):
        perm_unranks(np.array([6]), 3)
    with pytest.raises(InputError, match="width <= 3"):
        tile_distances(4)


@pytest.mark.parametrize("layout", ["blank-last", "blank-first"])
def test_puzzle8_exhaustive(layout):
    dist = puzzle8_distances(layout)
    assert dist.shape == (362880,) and dist.dtype == np.int8
    reach = dist >= 0
    assert reach.sum() == 181440
    assert dist.max() == 31
    # every reachable rank is in the goal's parity class, the others are not
    perms = perm_unranks(np.arange(362880), 9)
    np.testing.assert_array_equal(reach, solvable(perms, 3, layout))
    # known distribution: 2 states at distance 31 (Reinefeld 1993) and one goal
    counts = np.bincount(dist[reach])
    assert counts[0] == 1 and counts[31] == 2 and counts.sum() == 181440
    assert dist[perm_ranks(goal_state(3, layout))[0]] == 0


def test_puzzle8_distances_are_consistent_with_moves():
    """Children of every state differ by exactly 1 in distance (a sample of 5,000 states)."""
    p = NPuzzle(3)
    dist = puzzle8_distances()
    states = p.random_states(5000, np.random.default_rng(1))
    d = dist[perm_ranks(states)]
    ch, va = p.expand(states)
    dc = dist[perm_ranks(ch.reshape(-1, 9))].reshape(-1, 4)
    assert (np.abs(dc - d[:, None])[va] == 1).all()
    # one neighbour at least is closer, except at the goal
    closer = ((dc == d[:, None] - 1) & va).any(axis=1)
    assert (closer | (d == 0)).all()


def test_layout_conversion_preserves_optimal_length():
    first, last = puzzle8_distances("blank-first"), puzzle8_distances("blank-last")
    perms = perm_unranks(np.flatnonzero(first >= 0), 9)
    conv = convert_layout(perms, 3)
    np.testing.assert_array_equal(last[perm_ranks(conv)], first[perm_ranks(perms)])
