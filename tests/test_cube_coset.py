"""Symmetry-reduced cube coset coordinates and tables (``pdb_builders.cube_coset``): the
coordinates' move and conjugation actions checked by brute force on random cubes, and reduced
breadth-first tables checked entry by entry against unreduced ones over the same coordinates."""

from __future__ import annotations

import numpy as np
import pytest

from pdb_builders import cube_coset as C
from pdb_builders import cube_symmetry as S
from puzzles._cube_coords import bfs_product


def _random_cubes(metric: str, n: int, seed: int) -> S.Cube:
    rng = np.random.default_rng(seed)
    moves = S._moves(metric)
    cubes = []
    for _ in range(n):
        c = S.identity()
        for a in rng.integers(0, len(moves), int(rng.integers(0, 25))):
            c = S.multiply(c, moves[int(a)])
        cubes.append(c)
    return tuple(np.stack([c[i] for c in cubes]) for i in range(4))  # type: ignore[return-value]


def test_corner_classes_match_the_published_count() -> None:
    sp = C.coset_space("htm", "full", "full")
    assert sp.num_classes == 9930  # nxopt's figure for 70 * 2187 under 16 symmetries
    assert sp.size == 9930 * 7920
    # the symmetry of each raw value takes it to its class's representative
    assert np.array_equal(sp.cconj[np.arange(sp.cconj.shape[0]), sp.symof], sp.reps[sp.classof])
    assert (sp.selfsym & 1).all()


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_coordinates_are_well_defined_under_moves_and_conjugation(metric: str) -> None:
    """Equal coordinates give equal coordinates after every move and every conjugation: each
    random cube's images agree with the tables, which were made from other cubes (the
    representatives) with the same coordinates."""
    raw = C.raw_tables(metric)
    cubes = _random_cubes(metric, 60, seed=11)
    cc, ec = C.corner_coord(cubes[0], cubes[1]), C.edge_coord(cubes[2], cubes[3])
    for a, m in enumerate(S._moves(metric)):
        moved = S.multiply(cubes, m)
        assert np.array_equal(C.corner_coord(moved[0], moved[1]), raw["cmove"][cc, a])
        assert np.array_equal(C.edge_coord(moved[2], moved[3]), raw["emove"][ec, a])
    for s, sym in enumerate(S.ud_symmetries()):
        conj = S.conjugate(cubes, sym)
        assert np.array_equal(C.corner_coord(conj[0], conj[1]), raw["cconj"][cc, s])
        assert np.array_equal(C.edge_coord(conj[2], conj[3]), raw["econj"][ec, s])
    # moving then conjugating = conjugating then making the mapped move, on the coordinates
    mmap = S.ud_move_map(metric)
    for s in range(16):
        for a in range(mmap.shape[1]):
            assert np.array_equal(raw["cconj"][raw["cmove"][cc, a], s],
                                  raw["cmove"][raw["cconj"][cc, s], mmap[s, a]])
            assert np.array_equal(raw["econj"][raw["emove"][ec, a], s],
                                  raw["emove"][raw["econj"][ec, s], mmap[s, a]])


def test_coordinates_round_trip_through_representatives() -> None:
    values = np.arange(0, 70 * 2187, 97)
    reps = C.corner_reps(values)
    assert np.array_equal(C.corner_coord(reps[0], reps[1]), values)
    evalues = np.arange(495 * 16)
    ereps = C.edge_reps(evalues)
    assert np.array_equal(C.edge_coord(ereps[2], ereps[3]), evalues)


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("parts", [("full", "none"), ("set", "full"), ("set", "set")])
def test_reduced_table_equals_unreduced_bfs(metric: str, parts: tuple[str, str]) -> None:
    sp = C.coset_space(metric, *parts)
    table, stats = C.build(metric, *parts)
    assert table.shape == (sp.size,) and sum(stats["layers"]) == sp.size
    nc, ne = sp.cmove.shape[0], sp.ne
    full = bfs_product(sp.cmove, sp.emove, sp.cgoal * ne + sp.egoal)
    assert (full >= 0).all()
    corner = np.repeat(np.arange(nc), ne)
    edge = np.tile(np.arange(ne), nc)
    assert np.array_equal(table[sp.index(corner, edge)], full.astype(np.uint8))
    if parts == ("full", "none"):
        assert sp.num_classes == 9930 and full.shape[0] == 153090


def test_table_values_bound_scramble_lengths() -> None:
    sp = C.coset_space("qtm", "set", "full")
    table, _ = C.build("qtm", "set", "full")
    rng = np.random.default_rng(5)
    moves = S._moves("qtm")
    for n in range(0, 9):
        c = S.identity()
        for a in rng.integers(0, len(moves), n):
            c = S.multiply(c, moves[int(a)])
        assert int(C.values(table, sp, c)[0]) <= n
