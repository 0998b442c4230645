"""Ranking kernels against a naive pure-Python reference."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.errors import InputError
from pdb_builders import ranking
from puzzles.perm_ranks import rank_partial, unrank_partial


def naive_rank(pos: tuple[int, ...], n: int) -> int:
    """Index of ``pos`` in the lexicographic list of all k-tuples of distinct cells."""
    return list(itertools.permutations(range(n), len(pos))).index(tuple(pos))


@pytest.mark.nojit
@pytest.mark.parametrize("n,k", [(4, 2), (5, 3), (4, 4), (6, 1), (3, 0)])
def test_rank_matches_naive(n: int, k: int) -> None:
    for i, pos in enumerate(itertools.permutations(range(n), k)):
        assert naive_rank(pos, n) == i
        r = rank_partial(np.array(pos, dtype=np.int64), n)
        assert r == i
        out = np.zeros(k, dtype=np.int64)
        unrank_partial(np.int64(i), n, k, out)
        assert tuple(out) == pos


@pytest.mark.parametrize("n,k", [(9, 4), (9, 9), (16, 3), (25, 2)])
def test_batch_roundtrip_is_bijection(n: int, k: int) -> None:
    total = ranking.num_placements(n, k)
    assert total == math.factorial(n) // math.factorial(n - k)
    ranks = np.arange(total)
    pos = ranking.unrank(ranks, n, k)
    assert pos.shape == (total, k)
    assert np.array_equal(ranking.rank(pos, n), ranks)
    # every placement distinct
    assert len({tuple(p) for p in pos[:: max(1, total // 5000)]}) == len(pos[:: max(1, total // 5000)])


def test_large_random_roundtrip() -> None:
    rng = np.random.default_rng(0)
    n, k = 49, 8
    pos = np.array([rng.permutation(n)[:k] for _ in range(200)])
    r = ranking.rank(pos, n)
    assert r.max() < ranking.num_placements(n, k)
    assert np.array_equal(ranking.unrank(r, n, k), pos)
    for p, ri in zip(pos[:20], r[:20], strict=True):  # the mixed-radix formula
        digits = [int(p[i]) - int(np.sum(p[:i] < p[i])) for i in range(k)]
        expect = 0
        for i, d in enumerate(digits):
            expect = expect * (n - i) + d
        assert expect == ri


def test_bad_input() -> None:
    with pytest.raises(InputError, match="distinct"):
        ranking.rank(np.array([1, 1]), 4)
    with pytest.raises(InputError, match="0..3"):
        ranking.rank(np.array([1, 4]), 4)
    with pytest.raises(InputError, match="ranks"):
        ranking.unrank(np.array([12]), 4, 2)
    with pytest.raises(InputError, match="k"):
        ranking.num_placements(3, 4)
