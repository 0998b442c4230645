"""The cube's U-D symmetries and axis rotations at the cubie level (``pdb_builders.cube_symmetry``)."""

from __future__ import annotations

import numpy as np
import pytest

from pdb_builders import cube_symmetry as S
from pdb_builders.korf_cube import cubie_moves


def _random_cube(rng: np.random.Generator, metric: str, n: int = 30) -> S.Cube:
    moves = S._moves(metric)
    c = S.identity()
    for a in rng.integers(0, len(moves), n):
        c = S.multiply(c, moves[int(a)])
    return c


def test_sixteen_distinct_elements_closed_under_product_and_inverse() -> None:
    syms = S.ud_symmetries()
    assert len({np.concatenate(s).tobytes() for s in syms}) == 16
    assert S.equal(syms[0], S.identity())
    prod = S.ud_product_table()  # raises if a product falls outside the set
    assert all(sorted(row) == list(range(16)) for row in prod)  # a Latin square: a group
    inv = S.ud_inverse_index()
    for i in range(16):
        assert prod[i, inv[i]] == 0
    # eight rotations (no mirrored corner) and eight reflections
    mirrored = [bool((s[1] >= 3).all()) for s in syms]
    assert sum(mirrored) == 8
    assert all(bool((s[1] < 3).all()) or m for s, m in zip(syms, mirrored, strict=True))


def test_group_holds_the_e_slice_reflection_and_keeps_the_u_d_axis() -> None:
    faces = cubie_moves("htm").faces
    fmap = S.ud_move_map("htm")
    # every symmetry sends U and D turns to U or D turns
    for row in fmap:
        assert {int(faces[row[0]]), int(faces[row[9]])} == {0, 3}
    # the E-slice reflection: U <-> D with directions reversed, every other face kept
    qtm = S.ud_move_map("qtm")
    swaps = [i for i in range(16)
             if list(qtm[i]) == [7, 6, 3, 2, 5, 4, 1, 0, 9, 8, 11, 10]]
    assert len(swaps) == 1


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_conjugation_commutes_with_mapped_moves(metric: str) -> None:
    rng = np.random.default_rng(3)
    moves = S._moves(metric)
    elements = [*S.ud_symmetries(), *S.axis_rotations()]
    maps = np.concatenate([S.ud_move_map(metric), S.axis_move_map(metric)])
    for _ in range(3):
        c = _random_cube(rng, metric)
        for s, mp in zip(elements, maps, strict=True):
            cs = S.conjugate(c, s)
            assert (cs[1] < 3).all()  # a legal cube stays a legal cube
            for a, m in enumerate(moves):
                assert S.equal(S.conjugate(S.multiply(c, m), s), S.multiply(cs, moves[mp[a]]))
            assert sorted(mp) == list(range(len(moves)))


def test_axis_rotations_carry_u_d_to_the_other_axes() -> None:
    faces = cubie_moves("htm").faces
    amap = S.axis_move_map("htm")
    axes = {int(faces[amap[k, 0]]) % 3 for k in range(3)}  # where the U turn goes
    assert axes == {0, 1, 2}
    r = S.axis_rotations()[1]
    assert S.equal(S.multiply(S.multiply(r, r), r), S.identity())
