"""Sliding-tile puzzle: dynamics, group properties, layouts, parsing and validation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from puzzles.npuzzle import (
    ACTION_NAMES,
    NPuzzle,
    blank_moves_table,
    convert_layout,
    convert_moves,
    goal_state,
    solvable,
)
from puzzles.permutations import parities

WIDTHS = [2, 3, 4, 5, 6, 7]


def naive_children(state: np.ndarray, width: int) -> list[np.ndarray | None]:
    """Reference expansion: swap the blank with its neighbour in direction U, D, L, R."""
    out: list[np.ndarray | None] = []
    b = int(np.flatnonzero(state == 0)[0])
    r, c = divmod(b, width)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < width and 0 <= cc < width:
            t = rr * width + cc
            child = state.copy()
            child[b], child[t] = child[t], 0
            out.append(child)
        else:
            out.append(None)
    return out


def naive_parity(perm: np.ndarray) -> int:
    inv = sum(1 for i in range(len(perm)) for j in range(i + 1, len(perm)) if perm[i] > perm[j])
    return inv % 2


def read_instances(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    lengths = np.array([int(r[1]) for r in rows])
    states = np.array([[int(x) for x in r[2:]] for r in rows], dtype=np.uint8)
    return states, lengths


@pytest.mark.nojit
@pytest.mark.parametrize("width", WIDTHS)
def test_expand_matches_naive_reference(width):
    p = NPuzzle(width)
    rng = np.random.default_rng(width)
    states = p.random_states(50, rng)
    children, valid = p.expand(states)
    assert children.shape == (50, 4, width * width) and valid.shape == (50, 4)
    assert children.dtype == np.uint8
    for s, ch, va in zip(states, children, valid, strict=True):
        ref = naive_children(s, width)
        for a in range(4):
            if ref[a] is None:
                assert not va[a]
                np.testing.assert_array_equal(ch[a], s)  # invalid rows copy the parent
            else:
                assert va[a]
                np.testing.assert_array_equal(ch[a], ref[a])


@pytest.mark.nojit
@pytest.mark.parametrize("width", [3, 4, 5])
def test_action_then_inverse_is_identity(width):
    p = NPuzzle(width)
    states = p.random_states(200, np.random.default_rng(1))
    for a in range(4):
        _, valid = p.expand(states)
        legal = states[valid[:, a]]
        moved = p.apply(legal, np.full(len(legal), a))
        back = p.apply(moved, np.full(len(legal), p.inverse_action(a)))
        np.testing.assert_array_equal(back, legal)
        assert (moved != legal).any(axis=1).all()


def test_apply_matches_expand_and_rejects_illegal():
    p = NPuzzle(4)
    states = p.random_states(300, np.random.default_rng(2))
    children, valid = p.expand(states)
    for a in range(4):
        ok = valid[:, a]
        np.testing.assert_array_equal(p.apply(states[ok], np.full(ok.sum(), a)), children[ok, a])
    corner = p.goal()  # blank-last: blank in the bottom-right corner
    with pytest.raises(ValueError, match="illegal move D"):
        p.apply(corner[None, :], np.array([1]))
    with pytest.raises(ValueError, match="illegal move R"):
        p.apply(corner[None, :], np.array([3]))
    np.testing.assert_array_equal(p.legal_actions(corner), [0, 2])


def test_blank_moves_table():
    t = blank_moves_table(3)
    assert t.shape == (9, 4)
    np.testing.assert_array_equal(t[0], [-1, 3, -1, 1])
    np.testing.assert_array_equal(t[4], [1, 7, 3, 5])
    np.testing.assert_array_equal(t[8], [5, -1, 7, -1])
    for pos in range(9):
        for a in range(4):
            if t[pos, a] >= 0:
                assert t[t[pos, a], [1, 0, 3, 2][a]] == pos


@pytest.mark.parametrize("width", [3, 4])
def test_distinct_states_at_depth_one_and_two(width):
    for layout in ("blank-last", "blank-first"):
        p = NPuzzle(width, goal=layout)
        g = p.goal()
        ch, va = p.expand(g[None, :])
        d1 = ch[0][va[0]]
        assert len({s.tobytes() for s in d1}) == len(d1) == 2  # the blank is in a corner
        ch2, va2 = p.expand(d1)
        d2 = {s.tobytes() for s in ch2[va2]} - {g.tobytes()}
        # from a corner: each depth-1 state has 3 moves, one of them back to the goal
        assert len(d2) == 4
        assert not d2 & {s.tobytes() for s in d1}


def test_goal_layouts():
    np.testing.assert_array_equal(goal_state(3, "blank-last"), [1, 2, 3, 4, 5, 6, 7, 8, 0])
    np.testing.assert_array_equal(goal_state(3, "blank-first"), np.arange(9))
    assert NPuzzle(4).is_goal(goal_state(4)[None, :])[0]
    assert not NPuzzle(4, goal="blank-first").is_goal(goal_state(4)[None, :])[0]
    assert NPuzzle(3).num_states == 181440
    assert NPuzzle(4).num_states == 10461394944000


def test_permutation_parity_matches_inversions():
    rng = np.random.default_rng(3)
    perms = np.array([rng.permutation(16) for _ in range(200)])
    np.testing.assert_array_equal(parities(perms), [naive_parity(q) for q in perms])


@pytest.mark.parametrize("width", [3, 4, 5])
def test_scramble_is_reachable_and_replays(width):
    for layout in ("blank-last", "blank-first"):
        p = NPuzzle(width, goal=layout)
        states, moves = p.scramble(40, 25, np.random.default_rng(4))
        assert states.shape == (40, width * width) and moves.shape == (40, 25)
        assert solvable(states, width, layout).all()
        for s, m in zip(states, moves, strict=True):
            np.testing.assert_array_equal(p.from_moves(m), s)
            assert all(m[i + 1] != p.inverse_action(m[i]) for i in range(len(m) - 1))
            inv = [p.inverse_action(a) for a in m[::-1]]
            assert p.check_solution(s, inv)


def test_scramble_is_seeded():
    p = NPuzzle(4)
    a = p.scramble(5, 30, np.random.default_rng(9))
    b = p.scramble(5, 30, np.random.default_rng(9))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("width", [2, 3, 4])
@pytest.mark.parametrize("layout", ["blank-last", "blank-first"])
def test_random_states_solvable_and_uniform(width, layout):
    p = NPuzzle(width, goal=layout)
    rng = np.random.default_rng(5)
    states = p.random_states(6000 if width == 2 else 2000, rng)
    assert solvable(states, width, layout).all()
    for s in states[:50]:
        p.validate(s)
    if width == 2:  # 12 solvable states: each about 500 times
        _, counts = np.unique(states, axis=0, return_counts=True)
        assert len(counts) == 12
        assert counts.min() > 400 and counts.max() < 600
    else:  # blank position uniform over the cells
        counts = np.bincount(p.blank_positions(states), minlength=width * width)
        expected = len(states) / (width * width)
        assert np.abs(counts - expected).max() < 5 * np.sqrt(expected)


def test_convert_layout_maps_goals_and_moves():
    for w in (3, 4, 5):
        np.testing.assert_array_equal(convert_layout(goal_state(w, "blank-first"), w),
                                      goal_state(w, "blank-last"))
        np.testing.assert_array_equal(convert_layout(goal_state(w, "blank-last"), w),
                                      goal_state(w, "blank-first"))
    first, last = NPuzzle(4, goal="blank-first"), NPuzzle(4)
    states, moves = first.scramble(20, 40, np.random.default_rng(6))
    conv = convert_layout(states, 4)
    np.testing.assert_array_equal(convert_layout(conv, 4), states)  # an involution
    for s, m in zip(conv, moves, strict=True):
        np.testing.assert_array_equal(last.from_moves(convert_moves(m)), s)


def test_korf100_valid_blank_first_rejected_blank_last(shared):
    states, _ = read_instances(shared / "instances" / "korf100_15puzzle.txt")
    assert len(states) == 100
    first, last = NPuzzle(4, goal="blank-first"), NPuzzle(4)
    for s in states:
        first.validate(s)
        np.testing.assert_array_equal(first.parse(" ".join(map(str, s))), s)
        with pytest.raises(InputError, match="unsolvable for the blank-last goal.*blank-first"):
            last.parse(",".join(map(str, s)))
    # instance 1 converted to the other layout is a blank-last state
    conv = convert_layout(states[0], 4)
    last.validate(conv)
    assert solvable(conv[None, :], 4, "blank-last")[0]


def test_hardest17_and_korf_felner_valid(shared):
    states, lengths = read_instances(shared / "instances" / "hardest17_15puzzle.txt")
    assert len(states) == 17 and (lengths == 80).all()
    assert solvable(states, 4, "blank-last").all()
    assert not solvable(states, 4, "blank-first").any()
    states24, _ = read_instances(shared / "instances" / "korf_felner50_24puzzle.txt")
    assert len(states24) == 50
    assert solvable(states24, 5, "blank-first").all()


# --------------------------------------------------------------------------- text and errors
def test_parse_format_roundtrip_and_separators():
    p = NPuzzle(3)
    s = p.random_states(1, np.random.default_rng(7))[0]
    np.testing.assert_array_equal(p.parse(p.format(s)), s)
    text = " ".join(map(str, s))
    np.testing.assert_array_equal(p.parse(text), s)
    np.testing.assert_array_equal(p.parse(" , ".join(map(str, s)) + "\n"), s)
    assert p.parse(p.format(s)).dtype == np.uint8


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("1,2,3", r"puzzle8 needs 9 numbers \(3x3, 0 = blank\), got 3"),
        ("1,2,3,4,5,6,7,8,x", r"'x' is not an integer"),
        ("1,2,3,4,5,6,7,8,9", r"tile 9 out of range 0..8"),
        ("1,2,3,4,5,6,7,-1,0", r"tile -1 out of range"),
        ("1,1,3,4,5,6,7,8,0", r"duplicate tiles 1; missing tiles 2"),
        ("", r"needs 9 numbers"),
        ("2,1,3,4,5,6,7,8,0", r"unsolvable for the blank-last goal.*swapping two tiles"),
    ],
)
def test_parse_errors_are_one_line(text, pattern):
    with pytest.raises(InputError, match=pattern) as err:
        NPuzzle(3).parse(text)
    assert "\n" not in str(err.value)


def test_parity_error_names_other_layout():
    first = NPuzzle(4, goal="blank-first")
    s = NPuzzle(4).goal()
    with pytest.raises(InputError, match="solvable to the blank-last goal"):
        first.validate(s)


def test_moves_parse_and_format():
    p = NPuzzle(4)
    assert p.parse_moves("U D L R") == [0, 1, 2, 3]
    assert p.parse_moves("udlr") == [0, 1, 2, 3]
    assert p.parse_moves("UULL") == [0, 0, 2, 2]
    assert p.parse_moves("") == []
    assert p.format_moves([0, 1, 2, 3]) == "U D L R"
    assert p.action_names == ACTION_NAMES
    with pytest.raises(InputError, match="'X' is not a move"):
        p.parse_moves("U X")
    with pytest.raises(ValueError, match="illegal move"):
        p.from_moves(p.parse_moves("D"))


def test_constructor_errors():
    with pytest.raises(InputError, match="goal: expected blank-last, blank-first, korf1982"):
        NPuzzle(4, goal="middle")
    with pytest.raises(InputError, match="width"):
        NPuzzle(1)


def test_encode_and_pretty():
    p = NPuzzle(3)
    s = p.random_states(4, np.random.default_rng(8))
    e = p.encode(s)
    assert e.shape == (4, 9) and e.dtype == np.int64
    assert e.min() >= 0 and e.max() < p.num_symbols == 9
    drawing = p.pretty(p.goal())
    assert drawing.count("\n") == 6 and "| 8 |   |" in drawing


def test_api_bad_input():
    p = NPuzzle(3)
    with pytest.raises(InputError, match=r"needs shape \(9,\)"):
        p.validate(np.arange(8))
    with pytest.raises(InputError, match="expected integers"):
        p.validate(np.arange(9, dtype=float))
    with pytest.raises(InputError, match="missing tiles 0"):
        p.validate(np.array([1, 2, 3, 4, 5, 6, 7, 8, 8]))
    with pytest.raises(InputError, match="expected 16 entries per state for width 4"):
        convert_layout(np.arange(9), 4)
    with pytest.raises(InputError, match="width"):
        blank_moves_table(0)
    with pytest.raises(ValueError, match=r"shape \(B, 9\)"):
        p.expand(np.zeros((2, 16), dtype=np.uint8))
    with pytest.raises(ValueError, match="2 states but 1 actions"):
        p.apply(np.stack([p.goal(), p.goal()]), np.array([0]))
    with pytest.raises(ValueError, match="actions must be 0..3"):
        p.apply(p.goal()[None, :], np.array([4]))
    with pytest.raises(InputError, match="n and depth"):
        p.scramble(1, -1, np.random.default_rng(0))


def test_pretty_color_marks_placed_tiles():
    p = NPuzzle(3)
    s = p.from_moves(p.parse_moves("U"))  # tiles 6 and the blank swapped
    colored = p.pretty(s, color=True)
    assert colored.count("\x1b[32m") == 7
    assert p.pretty(s) == colored.replace("\x1b[32m", "").replace("\x1b[0m", "")


@pytest.mark.parametrize("text", ["1_2,2,3,4,5,6,7,8,0", "１,2,3,4,5,6,7,8,0", "١,2,3,4,5,6,7,8,0",
                                  "1,2,3,4,5,6,7,8,٠", "1,2,3,4,5,6,7,8,0x0", "1,2,3,4,5,6,7,8,²"])
def test_tiles_are_ascii_integers(text):
    with pytest.raises(InputError, match="is not an integer"):
        NPuzzle(3).parse(text)
