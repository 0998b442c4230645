"""DeepCubeA's cube3 test set: their sticker layout and move direction map onto ours."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from puzzles.cube import Cube3, deepcubea_cube3_tables, deepcubea_moves, from_deepcubea_cube3
from suites.importers.deepcubea import load_results, load_test_set


def test_their_goal_is_our_goal():
    c = Cube3()
    assert np.array_equal(from_deepcubea_cube3(np.arange(54))[0], c.goal())


def test_tables_invert_the_import():
    rng = np.random.default_rng(0)
    raw = np.argsort(rng.random((5, 54)), axis=1)  # any sticker-id arrangement
    position, colour = deepcubea_cube3_tables()
    ours = from_deepcubea_cube3(raw)
    assert np.array_equal(colour[ours[:, position]], raw // 9)
    assert sorted(position.tolist()) == list(range(54))


def test_bad_raw_states():
    with pytest.raises(InputError, match=r"shape \(B, 54\)"):
        from_deepcubea_cube3(np.arange(53))
    with pytest.raises(InputError, match="0..53"):
        from_deepcubea_cube3(np.arange(1, 55))
    with pytest.raises(InputError, match="not \\[face, \\+1\\|-1\\]"):
        deepcubea_moves([["X", 1]])
    with pytest.raises(InputError, match="expected \\+1 or -1"):
        deepcubea_moves([["U", 2]])


def test_move_mapping():
    assert deepcubea_moves([["U", 1], ["U", -1], ["B", -1]]) == [0, 1, 11]
    assert deepcubea_moves([["R", 1], ["R", -1]], metric="htm") == [3, 4]


def _corner_parity(c: Cube3, s: np.ndarray) -> int:
    cp = c.to_cubies(s)[0][0]
    return sum(int(cp[i] > cp[j]) for i in range(8) for j in range(i + 1, 8)) % 2


@pytest.mark.shared
def test_published_solutions_replay(deepcubea):
    data = load_test_set(deepcubea / "cube3" / "test_data_0.pkl")
    states = from_deepcubea_cube3(data.states)
    assert states.shape == (1000, 54)
    results = {r["index"]: r["moves"] for r in load_results(deepcubea / "cube3" / "deepcubea_results_output.txt")}
    assert data.solutions is not None and len(data.solutions) == 1000
    c, h = Cube3("qtm"), Cube3("htm")
    for i, (s, sol) in enumerate(zip(states, data.solutions, strict=True)):
        c.validate(s)
        actions = deepcubea_moves(sol)
        assert c.check_solution(s, actions), f"cube3 state {i}"
        assert h.check_solution(s, deepcubea_moves(sol, metric="htm"))
        # the pickled solutions are shorter or equal to DeepCubeA's own (results file) ones, and every
        # quarter turn flips the corner permutation parity, so lengths agree with the state's parity
        assert len(actions) <= results[i]
        assert len(actions) % 2 == (results[i] % 2) == _corner_parity(c, s)
        assert not c.is_goal(s[None, :])[0]
    position, colour = deepcubea_cube3_tables()
    assert np.array_equal(colour[states[:, position]], data.states // 9)


@pytest.mark.shared
def test_opposite_direction_fails(deepcubea):
    """Read with +1 as counter-clockwise, their solutions do not solve their cubes."""
    data = load_test_set(deepcubea / "cube3" / "test_data_0.pkl")
    states = from_deepcubea_cube3(data.states[:20])
    c = Cube3()
    for s, sol in zip(states, data.solutions[:20], strict=True):
        flipped = [c.inverse_action(a) for a in deepcubea_moves(sol)]
        assert not c.check_solution(s, flipped)
