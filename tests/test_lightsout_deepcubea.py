"""DeepCubeA's Lights Out 7x7 test set against our exact GF(2) solver."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from puzzles.lightsout import LightsOut, from_deepcubea_lights
from suites.importers.deepcubea import load_results, load_test_set


@pytest.mark.shared
def test_exact_solver_solves_their_test_set(deepcubea):
    data = load_test_set(deepcubea / "lightsout7" / "test_data_0.pkl")
    states = from_deepcubea_lights(data.states)
    assert states.shape == (500, 49)
    p = LightsOut(7)
    assert p.solvable(states).all()
    lengths = p.optimal_lengths(states)
    for s in states:
        p.validate(s)
        sol = p.optimal_solution(s)
        assert p.check_solution(s, sol)
    rows = load_results(deepcubea / "lightsout7" / "deepcubea_results_output.txt")
    theirs = np.array([r["moves"] for r in sorted(rows, key=lambda r: r["index"])])
    assert len(theirs) == 500
    # ours are optimal: never longer than a published solution
    assert (lengths <= theirs).all()
    optimal = int((lengths == theirs).sum())
    print(f"DeepCubeA lightsout7: {optimal}/500 published solutions are optimal")


@pytest.mark.nojit
def test_conversion_errors():
    with pytest.raises(InputError, match="0 or 1"):
        from_deepcubea_lights(np.array([[0, 2]]))
