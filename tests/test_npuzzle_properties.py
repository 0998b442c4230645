"""Property-based checks of the sliding-tile group structure (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.npuzzle import NPuzzle, convert_layout, convert_moves, solvable

widths = st.sampled_from([2, 3, 4, 5])
walks = st.lists(st.integers(0, 3), max_size=60)


def legal_prefix(p: NPuzzle, moves: list[int]) -> list[int]:
    """The moves of ``moves`` that are legal when played from the goal (illegal ones skipped)."""
    s, out = p.goal(), []
    for a in moves:
        if a in p.legal_actions(s):
            s = p.apply(s[None, :], np.array([a]))[0]
            out.append(a)
    return out


@settings(max_examples=60, deadline=None)
@given(width=widths, moves=walks, layout=st.sampled_from(["blank-last", "blank-first"]))
def test_inverse_path_returns_to_goal(width, moves, layout):
    p = NPuzzle(width, goal=layout)
    path = legal_prefix(p, moves)
    s = p.from_moves(path)
    assert solvable(s[None, :], width, layout)[0]
    assert p.check_solution(s, [p.inverse_action(a) for a in reversed(path)])


@settings(max_examples=60, deadline=None)
@given(width=widths, moves=walks)
def test_conversion_commutes_with_moves(width, moves):
    first, last = NPuzzle(width, goal="blank-first"), NPuzzle(width)
    path = legal_prefix(first, moves)
    s = first.from_moves(path)
    np.testing.assert_array_equal(convert_layout(s, width), last.from_moves(convert_moves(path)))
