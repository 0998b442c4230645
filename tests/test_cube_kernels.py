"""Cube Numba kernels against naive references, and the exhaustive 2x2x2 breadth-first search."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from puzzles import _cube_coords as k
from puzzles.cube import Cube2, cube2_index, cube2_unindex
from puzzles.perm_ranks import rank_partial_batch, unrank_partial_batch

# published 2x2x2 counts of positions per depth (DBL corner fixed), half-turn and quarter-turn metric
HTM_COUNTS = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
QTM_COUNTS = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276]


def naive_rank(p):
    """Lexicographic index of ``p`` among all permutations of its values (by enumeration)."""
    for i, q in enumerate(itertools.permutations(sorted(p))):
        if list(q) == list(p):
            return i
    raise AssertionError


@pytest.mark.nojit
@pytest.mark.parametrize("n", [1, 3, 4])
def test_rank_perm_matches_enumeration(n):
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
    ranks = rank_partial_batch(perms, n)
    assert ranks.tolist() == [naive_rank(p) for p in perms] == list(range(math.factorial(n)))
    assert np.array_equal(unrank_partial_batch(ranks, n, n), perms)


def test_rank_perm7_sample_and_round_trip():
    rng = np.random.default_rng(0)
    perms = np.argsort(rng.random((30, 7)), axis=1).astype(np.int64)
    assert rank_partial_batch(perms, 7).tolist() == [naive_rank(p) for p in perms]
    all_ranks = np.arange(5040)
    back = rank_partial_batch(unrank_partial_batch(all_ranks, 7, 7), 7)
    assert np.array_equal(back, all_ranks)


@pytest.mark.nojit
def test_rank_base_matches_int():
    rng = np.random.default_rng(1)
    digits = rng.integers(0, 3, size=(20, 6))
    expect = [int("".join(map(str, d)), 3) for d in digits]
    assert k.rank_base(digits, 3).tolist() == expect
    assert np.array_equal(k.unrank_base(np.array(expect), 3, 6), digits)


@pytest.mark.nojit
def test_bfs_product_on_a_tiny_graph():
    # two cyclic counters, action 0 steps the first mod 3, action 1 steps the second mod 4
    move_a = np.array([[1, 0], [2, 1], [0, 2]], dtype=np.int64)
    move_b = np.array([[0, 1], [1, 2], [2, 3], [3, 0]], dtype=np.int64)
    dist = k.bfs_product(move_a, move_b, 0)
    expect = [a + b for a in range(3) for b in range(4)]
    assert dist.tolist() == expect


def test_cube2_index_round_trip_and_dense():
    c = Cube2()
    s = c.random_states(500, np.random.default_rng(2))
    idx = c.index(s)
    assert idx.min() >= 0 and idx.max() < 3_674_160
    assert np.array_equal(c.from_index(idx), s)
    assert c.index(c.goal()).tolist() == [0]
    every = np.arange(0, 3_674_160, 997)
    assert np.array_equal(cube2_index(*cube2_unindex(every)), every)


def test_cube2_index_rejects_bad_arrays():
    with pytest.raises(ValueError, match="cp: expected an integer array"):
        cube2_index(np.zeros((2, 7), np.int64), np.zeros((2, 8), np.int64))
    with pytest.raises(ValueError, match="co: expected an integer array"):
        cube2_index(np.zeros((2, 8), np.int64), np.zeros((2, 8), np.float64))


@pytest.mark.parametrize("metric,counts", [("htm", HTM_COUNTS), ("qtm", QTM_COUNTS)])
def test_cube2_exhaustive_bfs_counts(metric, counts):
    c = Cube2(metric)
    dist = c.distance_table()
    assert dist.min() == 0
    assert np.bincount(dist).tolist() == counts
    assert dist.max() == (11 if metric == "htm" else 14)
    # the table agrees with random walks: distance never exceeds walk length, and children differ by <= 1
    states, moves = c.scramble(200, 6, np.random.default_rng(3))
    d = dist[c.index(states)]
    assert (d <= 6).all()
    children, _ = c.expand(states)
    dc = dist[c.index(children.reshape(-1, 24))].reshape(200, -1)
    assert (np.abs(dc - d[:, None]) <= 1).all() and (dc == d[:, None] - 1).any(axis=1)[d > 0].all()


def test_cube2_table_matches_sticker_bfs_to_depth_4():
    c = Cube2("htm")
    dist = c.distance_table()
    frontier = c.goal()[None, :]
    seen = {frontier[0].tobytes()}
    for depth in range(1, 5):
        children, _ = c.expand(frontier)
        new = {}
        for ch in children.reshape(-1, 24):
            key = ch.tobytes()
            if key not in seen and key not in new:
                new[key] = ch
        seen.update(new)
        frontier = np.array(list(new.values()))
        assert (dist[c.index(frontier)] == depth).all()


def test_cube2_metrics_bound_each_other():
    """A half turn is two quarter turns, so d_htm <= d_qtm <= 2 d_htm for every state."""
    dq = Cube2("qtm").distance_table().astype(np.int64)
    dh = Cube2("htm").distance_table().astype(np.int64)
    assert (dh <= dq).all() and (dq <= 2 * dh).all()
    assert (dq > dh).any()  # some states need a half turn
