"""Cube coordinate, move-table and breadth-first kernels against naive pure-Python references."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

from pdb_builders import cube_tables as K
from pdb_builders import korf_cube as kc
from puzzles.perm_ranks import rank_partial, unrank_partial

# ----------------------------------------------------------------------------- naive references


def naive_moves(metric: str, faces: str = kc.FACES) -> list[tuple[np.ndarray, ...]]:
    """Each action as a cubie-level cube, by repeated multiplication of the base turns."""
    m = kc.cubie_moves(metric, faces)
    return [(m.cp[a], m.co[a], m.ep[a], m.eo[a]) for a in range(m.num_actions)]


def random_cube(rng: np.random.Generator, metric: str = "htm", n: int = 30) -> tuple[np.ndarray, ...]:
    moves = naive_moves(metric)
    cube = kc.identity()
    for a in rng.integers(0, len(moves), n):
        cube = kc.multiply(cube, moves[a])
    return cube


def naive_edge_key(cube: tuple[np.ndarray, ...], edges: tuple[int, ...]) -> tuple[int, ...]:
    """Positions then flips of the tracked edges."""
    _, _, ep, eo = cube
    pos = [int(np.flatnonzero(ep == e)[0]) for e in edges]
    return tuple(pos) + tuple(int(eo[p]) for p in pos)


def naive_pattern_bfs(metric: str, key, size: int) -> dict:
    """Exact distances in the abstract space of ``key`` by BFS over full cubes (as representatives)."""
    moves = naive_moves(metric)
    start = kc.identity()
    dist = {key(start): 0}
    queue = deque([start])
    while queue:
        cube = queue.popleft()
        d = dist[key(cube)]
        for m in moves:
            child = kc.multiply(cube, m)
            k = key(child)
            if k not in dist:
                dist[k] = d + 1
                queue.append(child)
    assert len(dist) == size
    return dist


# ----------------------------------------------------------------------------- ranking


@pytest.mark.nojit
@pytest.mark.parametrize("n,k", [(5, 5), (8, 3), (12, 2), (7, 7)])
def test_cube_position_rank_is_lexicographic_index(n, k):
    out = np.empty(k, dtype=np.int64)
    for r, perm in enumerate(itertools.permutations(range(n), k)):
        if r % 7 and r > 50:
            continue  # every 7th beyond the first few keeps the no-JIT run short
        assert rank_partial(np.array(perm, dtype=np.int64), n) == r
        unrank_partial(r, n, k, out)
        assert tuple(out) == perm


@pytest.mark.nojit
def test_twist_rank_roundtrip_and_sum():
    out = np.empty(8, dtype=np.int64)
    for r in range(0, 2187, 13):
        K.twist_unrank(r, 8, out)
        assert out.sum() % 3 == 0 and out.max() <= 2
        assert K.twist_rank(out, 8) == r
    digits = [2, 0, 1, 1, 0, 2, 2]
    assert K.twist_rank(np.array(digits + [0]), 8) == int("".join(map(str, digits)), 3)


@pytest.mark.nojit
def test_nibble_lookup():
    values = np.arange(11, dtype=np.uint8) % 16
    packed = np.zeros(6, dtype=np.uint8)
    for i, v in enumerate(values):
        packed[i // 2] |= int(v) << (4 * (i % 2))
    assert np.array_equal(K.lookup_packed(packed, np.arange(11)), values)


# ----------------------------------------------------------------------------- cubie algebra


def test_base_moves_are_valid_quarter_turns():
    ident = kc.identity()
    for face in kc.FACES:
        m = kc._base(face)
        assert int(m[1].sum()) % 3 == 0 and int(m[3].sum()) % 2 == 0
        cube = ident
        for _ in range(4):
            cube = kc.multiply(cube, m)
        assert all(np.array_equal(a, b) for a, b in zip(cube, ident, strict=True))
    # opposite faces commute, adjacent ones do not
    u, d, r = kc._base("U"), kc._base("D"), kc._base("R")
    assert all(np.array_equal(a, b) for a, b in zip(kc.multiply(u, d), kc.multiply(d, u), strict=True))
    assert not np.array_equal(kc.multiply(u, r)[0], kc.multiply(r, u)[0])


def test_action_order_and_inverses():
    for metric, per_face in (("qtm", 2), ("htm", 3)):
        m = kc.cubie_moves(metric)
        assert m.num_actions == 6 * per_face
        assert list(m.faces) == [f for f in range(6) for _ in range(per_face)]
        for f in range(6):
            a, b = per_face * f, per_face * f + 1  # X and X'
            both = kc.multiply((m.cp[a], m.co[a], m.ep[a], m.eo[a]),
                               (m.cp[b], m.co[b], m.ep[b], m.eo[b]))
            assert all(np.array_equal(x, y) for x, y in zip(both, kc.identity(), strict=True))


def test_moves_agree_with_the_puzzle():
    cube = pytest.importorskip("puzzles.cube")
    for metric in ("qtm", "htm"):
        pm = cube.Cube3(metric).CUBIE_MOVES
        mine = kc.cubie_moves(metric)
        for theirs, ours in zip(pm, (mine.cp, mine.co, mine.ep, mine.eo), strict=True):
            assert np.array_equal(np.asarray(theirs, np.int64), ours)
        pm2 = cube.Cube2(metric).CUBIE_MOVES
        mine2 = kc.cubie_moves(metric, "URF")
        assert np.array_equal(np.asarray(pm2.cp, np.int64), mine2.cp)
        assert np.array_equal(np.asarray(pm2.co, np.int64), mine2.co)


# ----------------------------------------------------------------------------- move tables


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_coordinate_move_tables_match_cubie_moves(metric):
    rng = np.random.default_rng(1)
    perm, twist = kc.corner_move_tables(metric)
    comb3 = kc.edge_move_table(metric, 3)
    moves = naive_moves(metric)
    edges = (4, 9, 1)
    pat = kc.parse_pattern(kc.edge_pattern_name(edges))
    for _ in range(40):
        cube = random_cube(rng, metric)
        cp_tw = K.corner_coords(cube[0][None], cube[1][None], kc.CUBE3_RELABEL)[0]
        e = kc.pattern_index(pat, tuple(x[None] for x in cube))[0]
        for a, m in enumerate(moves):
            child = kc.multiply(cube, m)
            want = K.corner_coords(child[0][None], child[1][None], kc.CUBE3_RELABEL)[0]
            assert perm[cp_tw[0], a] == want[0] and twist[cp_tw[1], a] == want[1]
            want_e = kc.pattern_index(pat, tuple(x[None] for x in child))[0]
            assert (comb3[e >> 3, a] ^ (e & 7)) == want_e


def test_edge_index_is_rank_and_flips():
    rng = np.random.default_rng(2)
    edges = (7, 0, 11, 5)
    pat = kc.parse_pattern(kc.edge_pattern_name(edges))
    for _ in range(20):
        cube = random_cube(rng)
        key = naive_edge_key(cube, edges)
        pos, flips = key[:4], key[4:]
        rank = next(r for r, p in enumerate(itertools.permutations(range(12), 4)) if p == pos)
        want = rank * 16 + sum(f << j for j, f in enumerate(flips))
        assert kc.pattern_index(pat, tuple(x[None] for x in cube))[0] == want


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube2_move_tables_match_cubie_moves(metric):
    rng = np.random.default_rng(3)
    perm, twist = kc.corner_move_tables(metric, cube2=True)
    assert perm.shape == (5040, 6 if metric == "qtm" else 9) and twist.shape[0] == 729
    moves = naive_moves(metric, "URF")
    for _ in range(30):
        cube = kc.identity()
        for a in rng.integers(0, len(moves), 25):
            cube = kc.multiply(cube, moves[a])
        assert cube[0][6] == 6 and cube[1][6] == 0
        c = K.corner_coords(cube[0][None], cube[1][None], kc.CUBE2_RELABEL)[0]
        for a, m in enumerate(moves):
            child = kc.multiply(cube, m)
            want = K.corner_coords(child[0][None], child[1][None], kc.CUBE2_RELABEL)[0]
            assert perm[c[0], a] == want[0] and twist[c[1], a] == want[1]


# ----------------------------------------------------------------------------- breadth-first search


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_edge_pattern_bfs_matches_naive_bfs(metric):
    edges = (3, 8)
    pat = kc.parse_pattern(kc.edge_pattern_name(edges))
    naive = naive_pattern_bfs(metric, lambda c: naive_edge_key(c, edges), pat.size)
    for ratio in (0.0, 0.25, float("inf")):  # all backward, mixed, all forward
        table, stats = kc.build(metric, pat, backward_ratio=ratio)
        assert stats["layers"][0] == 1 and sum(stats["layers"]) == pat.size
        for key, d in naive.items():
            pos, flips = key[:2], key[2:]
            idx = (int(rank_partial(np.array(pos, dtype=np.int64), 12)) << 2) | flips[0] | (flips[1] << 1)
            assert table[idx] == d


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_corner_twist_bfs_matches_naive_bfs(metric):
    pat = kc.parse_pattern("corner-twist")
    naive = naive_pattern_bfs(metric, lambda c: tuple(int(x) for x in c[1]), 2187)
    table, _ = kc.build(metric, pat)
    for co, d in naive.items():
        assert table[K.twist_rank(np.array(co, dtype=np.int64), 8)] == d


# Counts per depth of the 2x2x2 (DBL fixed), the known God's-algorithm tables.
CUBE2_COUNTS = {
    "htm": [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644],
    "qtm": [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536,
            90280, 276],
}


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube2_table_histogram(metric):
    table, stats = kc.build(metric, "cube2-full")
    assert stats["layers"] == CUBE2_COUNTS[metric]
    assert np.bincount(table).tolist() == CUBE2_COUNTS[metric]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_cube2_table_equals_the_puzzles_exhaustive_distances(metric):
    cube = pytest.importorskip("puzzles.cube")
    puzzle = cube.Cube2(metric)
    table, _ = kc.build(metric, "cube2-full")
    exact = np.asarray(puzzle.distance_table())
    # map states of the puzzle's own index to ours through the cubie level
    theirs = np.random.default_rng(4).choice(puzzle.num_states, 100_000, replace=False)
    cp, co = cube.cube2_unindex(theirs)
    ours = kc.pattern_index(kc.parse_pattern("cube2-full"),
                            (cp, co, np.zeros((len(cp), 12)), np.zeros((len(cp), 12))))
    assert len(np.unique(ours)) == len(ours)
    assert np.array_equal(table[ours], exact[theirs].astype(np.uint8))


def test_pattern_names_are_checked():
    from core.errors import InputError

    assert kc.parse_pattern("edges:0,1,2,3,4,5").size == 42_577_920
    assert kc.parse_pattern("corners").size == 88_179_840
    assert kc.parse_pattern("cube2-full").size == 3_674_160
    for bad in ("edges:", "edges:1,1", "edges:12", "edges:a", "corner", "edges:0,1,2,3,4,5,6,7"):
        with pytest.raises(InputError):
            kc.parse_pattern(bad)
