"""The one permutation ranking (``puzzles.perm_ranks``) against a naive pure-Python ranking, as
every caller reaches it: the tile tables (``puzzles.exhaustive``), the PDB placements
(``pdb_builders.ranking``), the 2x2x2 index and the cube pattern coordinates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pdb_builders import cube_tables, ranking
from pdb_builders import korf_cube as kc
from puzzles import perm_ranks as R
from puzzles.exhaustive import perm_ranks, perm_unranks


def naive_rank(pos: tuple[int, ...], n: int) -> int:
    """Lexicographic rank of the k-tuple of distinct cells ``pos`` among all such tuples."""
    rank = 0
    free = list(range(n))
    for i, p in enumerate(pos):
        d = free.index(p)
        free.pop(d)
        rank = rank * (n - i) + d
    return rank


def test_naive_rank_is_the_enumeration_index():
    for n, k in ((4, 2), (5, 5), (6, 3)):
        for i, pos in enumerate(itertools.permutations(range(n), k)):
            assert naive_rank(pos, n) == i


@pytest.mark.parametrize("n,k", [(9, 9), (12, 7), (16, 6), (25, 3), (49, 2), (20, 20)])
def test_every_entry_point_gives_the_naive_rank(n, k):
    rng = np.random.default_rng(n * 100 + k)
    pos = np.stack([rng.permutation(n)[:k] for _ in range(40)]).astype(np.int64)
    want = np.array([naive_rank(tuple(p), n) for p in pos.tolist()], dtype=np.int64)
    assert [int(R.rank_partial(p, n)) for p in pos] == want.tolist()
    assert np.array_equal(R.rank_partial_batch(pos, n), want)
    assert np.array_equal(ranking.rank(pos, n), want)
    assert np.array_equal(R.unrank_partial_batch(want, n, k), pos)
    assert np.array_equal(ranking.unrank(want, n, k), pos)
    if k == n:
        assert [int(R.perm_rank(p)) for p in pos] == want.tolist()
        if n <= 20:
            assert np.array_equal(perm_ranks(pos.astype(np.uint8)), want)
            assert np.array_equal(perm_unranks(want, n), pos.astype(np.uint8))
        out = np.empty(n, dtype=np.uint8)
        R.perm_unrank(want[0], n, out)
        assert out.tolist() == pos[0].tolist()


def test_cube_coordinates_use_the_naive_rank():
    rng = np.random.default_rng(7)
    cp = np.stack([rng.permutation(8) for _ in range(20)]).astype(np.int64)
    co = np.zeros_like(cp)
    coords = cube_tables.corner_coords(cp, co, kc.CUBE3_RELABEL)
    # corner position rank: the position of each corner, corners in order
    where = np.argsort(cp, axis=1)
    assert coords[:, 0].tolist() == [naive_rank(tuple(w), 8) for w in where.tolist()]
    ep = np.stack([rng.permutation(12) for _ in range(20)]).astype(np.int64)
    eo = np.zeros_like(ep)
    tracked = np.array([0, 3, 5, 8, 10, 11], dtype=np.int64)
    idx = cube_tables.edge_coords(ep, eo, tracked)
    ewhere = np.argsort(ep, axis=1)[:, tracked]
    assert (idx >> len(tracked)).tolist() == [naive_rank(tuple(w), 12) for w in ewhere.tolist()]
    pat = kc.parse_pattern(kc.edge_pattern_name(tuple(int(e) for e in tracked)))
    assert kc.goal_index(pat) == naive_rank(tuple(tracked.tolist()), 12) << len(tracked)


@pytest.mark.nojit
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int64])
def test_small_integer_cells_give_the_naive_rank(dtype):
    """Cells held in small integer types (tile states are uint8) rank as Python integers, also
    when the kernel runs as plain Python (no JIT), where numpy would narrow the arithmetic."""
    rng = np.random.default_rng(9)
    for _ in range(20):
        perm = rng.permutation(9).astype(dtype)
        assert R.perm_rank(perm) == naive_rank(tuple(int(v) for v in perm), 9)
        part = rng.permutation(16)[:6].astype(dtype)
        assert R.rank_partial(part, 16) == naive_rank(tuple(int(v) for v in part), 16)
