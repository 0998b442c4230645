"""The inverse of a cube position and the map from a path of the inverse to one of the position:
checked against the inverse built independently from the scramble's moves (reversed, each
inverted) and against exact distances by breadth-first search."""

from __future__ import annotations

import numpy as np
import pytest

from puzzles.cube import Cube2, Cube3

CUBES = [Cube3("qtm"), Cube3("htm"), Cube2("qtm"), Cube2("htm")]


@pytest.mark.parametrize("cube", CUBES, ids=lambda c: c.name)
def test_inverse_of_random_scrambles(cube) -> None:
    rng = np.random.default_rng(5)
    states, moves = cube.scramble(25, 40, rng)
    inv = cube.inverse_states(states)
    assert inv.dtype == cube.dtype and inv.shape == states.shape
    for s, i, m in zip(states, inv, moves, strict=True):
        path = [int(a) for a in m]
        # built from the moves: inv(ak) .. inv(a1) from solved
        assert np.array_equal(i, cube.from_moves(cube.inverse_path(path)))
        # the position's moves applied to its inverse solve it (inverse, then position)
        assert cube.is_goal(cube.apply_path(i, path)[None, :])[0]
        # the inverse's own moves applied to the position solve it (position, then inverse)
        assert cube.is_goal(cube.apply_path(s, cube.inverse_path(path))[None, :])[0]
        # a path that solves the inverse (here: the scramble) maps to one that solves the position
        assert cube.check_solution(s, cube.inverse_path(path))
    assert np.array_equal(cube.inverse_states(inv), states)


@pytest.mark.parametrize("cube", CUBES, ids=lambda c: c.name)
def test_inverse_of_uniform_states_is_an_involution(cube) -> None:
    states = cube.random_states(50, np.random.default_rng(6))
    inv = cube.inverse_states(states)
    for i in inv:
        cube.validate(i)
    assert np.array_equal(cube.inverse_states(inv), states)
    assert cube.is_goal(cube.inverse_states(cube.goal()[None, :])).all()


def test_inverse_has_the_same_distance_on_the_2x2x2() -> None:
    cube = Cube2("qtm")
    dist = {cube.goal().tobytes(): 0}
    frontier = [cube.goal()]
    for d in range(1, 6):
        kids, _ = cube.expand(np.stack(frontier))
        frontier = []
        for k in kids.reshape(-1, cube.state_dim):
            if k.tobytes() not in dist:
                dist[k.tobytes()] = d
                frontier.append(k)
    states = np.stack([np.frombuffer(b, dtype=np.uint8) for b in dist])
    inv = cube.inverse_states(states)
    for s, i in zip(states, inv, strict=True):
        assert dist[i.tobytes()] == dist[s.tobytes()]
