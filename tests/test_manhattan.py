"""Manhattan distance and linear conflicts against naive references and exact 8-puzzle distances."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from core.registry import get_heuristic, get_puzzle
from heuristics import tiles_conflicts as tk
from tests import tiles_reference as ref

LAYOUTS = ("blank-first", "blank-last")


@pytest.mark.nojit
def test_line_conflicts_kernel_matches_subsets() -> None:
    rng = np.random.default_rng(3)
    w = 3
    md = tk.manhattan_table(w)
    keys = np.empty(w, np.int64)
    lis = np.empty(w, np.int64)
    goal = np.arange(9)
    for _ in range(30):
        s = rng.permutation(9).astype(np.uint8)
        lc = sum(tk.line_conflicts(s, w, i, r, keys, lis) for i in range(w) for r in (True, False))
        md_sum = sum(int(md[s[c], c]) for c in range(9))
        assert md_sum + 2 * lc == ref.linear_conflict(s, goal, w)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("width", [3, 4, 5])
def test_batch_matches_naive(width: int, layout: str) -> None:
    p = get_puzzle({3: "puzzle8", 4: "puzzle15", 5: "puzzle24"}[width], goal=layout)
    states, _ = p.scramble(40, 60, np.random.default_rng(width))
    m = get_heuristic("manhattan", p)(states)
    lc = get_heuristic("linear-conflict", p)(states)
    goal = p.goal()
    assert m.dtype == np.int32 and lc.shape == (40,)
    for s, hm, hl in zip(states, m, lc, strict=True):
        assert hm == ref.manhattan(s, goal, width)
        assert hl == ref.linear_conflict(s, goal, width)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_admissible_on_every_8puzzle_state(layout: str) -> None:
    states, dist = ref.puzzle8_states(layout)
    p = get_puzzle("puzzle8", goal=layout)
    m = get_heuristic("manhattan", p)(states)
    lc = get_heuristic("linear-conflict", p)(states)
    assert np.all(m <= dist) and np.all(lc <= dist)
    assert np.all(m <= lc) and np.any(m < lc)
    assert np.all((m == 0) == (dist == 0))
    # consistency of Manhattan: neighbours differ by exactly 1
    children, valid = p.expand(states[:2000])
    hc = get_heuristic("manhattan", p)(children.reshape(-1, 9)).reshape(-1, 4)
    assert np.all(np.abs(hc - m[:2000, None])[valid] == 1)


def test_bad_states_refused() -> None:
    from heuristics.manhattan import Manhattan

    h = get_heuristic("manhattan", get_puzzle("puzzle8"))
    with pytest.raises(InputError, match="states"):
        h(np.zeros((2, 10), np.uint8))
    with pytest.raises(InputError, match="0..8"):
        h(np.full((1, 9), 9, np.uint8))

    class NotTiles:
        name = "cube2"

    with pytest.raises(InputError, match="sliding-tile"):
        Manhattan(NotTiles())  # type: ignore[arg-type]
