"""Lights Out: dynamics, GF(2) algebra, exact optimal solutions, the lights-on heuristic."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

from core.errors import InputError
from core.registry import get_heuristic, get_puzzle
from heuristics.lights import LightsOn
from puzzles.gf2 import GF2System, null_space, rank, row_reduce
from puzzles.lightsout import LightsOut, press_matrix


def naive_press(state: np.ndarray, size: int, cell: int) -> np.ndarray:
    out = state.copy()
    r, c = divmod(cell, size)
    for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < size and 0 <= cc < size:
            out[rr * size + cc] ^= 1
    return out


def naive_rank(a: np.ndarray) -> int:
    """Rank over GF(2) with rows as Python integers (an independent elimination)."""
    rows = [int("".join(map(str, row)), 2) for row in a.astype(int)]
    rk = 0
    while rows:
        pivot = max(rows)
        rows.remove(pivot)
        if pivot == 0:
            continue
        rk += 1
        top = pivot.bit_length() - 1
        rows = [r ^ pivot if (r >> top) & 1 else r for r in rows]
    return rk


def bfs_lengths(size: int) -> dict[bytes, int]:
    """Exact distances of every reachable state by breadth-first search (small boards)."""
    p = LightsOut(size)
    start = p.goal()
    dist = {start.tobytes(): 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for cell in range(p.cells):
            c = naive_press(s, size, cell)
            if c.tobytes() not in dist:
                dist[c.tobytes()] = dist[s.tobytes()] + 1
                queue.append(c)
    return dist


@pytest.mark.nojit
@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_expand_and_apply_match_naive(size):
    p = LightsOut(size)
    states = p.random_states(20, np.random.default_rng(size))
    children, valid = p.expand(states)
    assert children.shape == (20, p.cells, p.cells) and valid.all()
    for s, ch in zip(states, children, strict=True):
        for a in range(p.cells):
            np.testing.assert_array_equal(ch[a], naive_press(s, size, a))
    for a in range(p.cells):
        np.testing.assert_array_equal(p.apply(states, np.full(20, a)), children[:, a])


def test_each_press_is_its_own_inverse_and_presses_commute():
    p = LightsOut(7)
    states = p.random_states(30, np.random.default_rng(0))
    for a in range(p.cells):
        assert p.inverse_action(a) == a
        once = p.apply(states, np.full(30, a))
        assert (once != states).any(axis=1).all()
        np.testing.assert_array_equal(p.apply(once, np.full(30, a)), states)
    ab = p.apply_path(p.goal(), [3, 17, 40])
    np.testing.assert_array_equal(ab, p.apply_path(p.goal(), [40, 3, 17]))


def test_distinct_states_at_depth_one_and_two():
    p = LightsOut(7)
    ch, _ = p.expand(p.goal()[None, :])
    d1 = {s.tobytes() for s in ch[0]}
    assert len(d1) == 49
    ch2, _ = p.expand(ch[0])
    d2 = {s.tobytes() for s in ch2.reshape(-1, 49)} - {p.goal().tobytes()}
    assert len(d2) == 49 * 48 // 2  # unordered pairs of distinct cells
    assert not d1 & d2


@pytest.mark.nojit
def test_press_matrix_ranks():
    assert rank(press_matrix(7)) == 49
    for n, r in {4: 12, 5: 23, 9: 73, 3: 9, 6: 36}.items():
        assert rank(press_matrix(n)) == r == naive_rank(press_matrix(n))
    a = press_matrix(5)
    np.testing.assert_array_equal(a, a.T)
    assert a.sum() == 5 * 25 - 4 * 5  # 5 per cell minus the missing border neighbours


def test_row_reduce_and_null_space_on_random_matrices():
    rng = np.random.default_rng(1)
    for _ in range(30):
        rows, cols = rng.integers(1, 12, size=2)
        a = rng.integers(0, 2, size=(rows, cols)).astype(bool)
        r_mat, e, piv = row_reduce(a)
        np.testing.assert_array_equal((e.astype(int) @ a.astype(int)) % 2, r_mat.astype(int))
        assert piv.size == naive_rank(a.astype(np.uint8))
        ns = null_space(a)
        assert ns.shape == (cols - piv.size, cols)
        assert not ((a.astype(int) @ ns.T.astype(int)) % 2).any()
        assert naive_rank(ns.astype(np.uint8)) == ns.shape[0]


def test_gf2_solve_and_consistency():
    rng = np.random.default_rng(2)
    a = press_matrix(5)
    sys5 = GF2System.from_matrix(a)
    x = rng.integers(0, 2, size=(50, 25))
    b = (x @ a.T.astype(int)) % 2
    assert sys5.consistent(b).all()
    sol = sys5.solve(b)
    np.testing.assert_array_equal((sol.astype(int) @ a.T.astype(int)) % 2, b)
    single = np.zeros((1, 25), dtype=np.uint8)
    single[0, 0] = 1  # one corner light alone is unsolvable on 5x5
    assert not sys5.consistent(single)[0]
    with pytest.raises(ValueError, match="no solution"):
        sys5.solve(single)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_optimal_solution_matches_bfs(size):
    """Exact lengths on boards 2, 3 (nonsingular) and 4 (nullity 4) against BFS of all states."""
    p = LightsOut(size)
    dist = bfs_lengths(size)
    assert len(dist) == p.num_states == 2 ** rank(press_matrix(size))
    states = np.array([np.frombuffer(k, dtype=np.uint8) for k in dist])
    lengths = p.optimal_lengths(states)
    np.testing.assert_array_equal(lengths, [dist[s.tobytes()] for s in states])
    for s in states[:: max(1, len(states) // 200)]:
        sol = p.optimal_solution(s)
        assert p.check_solution(s, sol) and len(sol) == dist[s.tobytes()]


def test_optimal_on_5x5_is_minimal_over_the_null_space():
    p = LightsOut(5)
    states = p.random_states(40, np.random.default_rng(3))
    sys5 = p.system
    assert sys5.nullity == 2
    x0 = sys5.solve(states)
    best = p.optimal_presses(states)
    for x, b, s in zip(x0, best, states, strict=True):
        weights = [(x ^ (c1 & sys5.kernel[0]) ^ (c2 & sys5.kernel[1])).sum()
                   for c1, c2 in itertools.product([False, True], repeat=2)]
        assert b.sum() == min(weights)
        assert p.check_solution(s, np.flatnonzero(b))


def test_7x7_optimal_solution_replays():
    p = LightsOut(7)
    states, moves = p.scramble(50, 15, np.random.default_rng(4))
    lengths = p.optimal_lengths(states)
    assert (lengths <= 15).all()
    for s in states:
        sol = p.optimal_solution(s)
        assert p.check_solution(s, sol)


def test_random_states_and_scramble():
    p = LightsOut(5)
    rng = np.random.default_rng(5)
    states = p.random_states(3000, rng)
    assert p.solvable(states).all()
    # each light is on half of the time when uniform over the solvable space
    assert np.abs(states.mean(axis=0) - 0.5).max() < 0.06
    s, m = p.scramble(30, 12, rng)
    for st, mv in zip(s, m, strict=True):
        np.testing.assert_array_equal(p.from_moves(mv), st)
        assert (mv[1:] != mv[:-1]).all()
    p2 = LightsOut(2)
    small = p2.random_states(3200, rng)
    _, counts = np.unique(small, axis=0, return_counts=True)
    assert len(counts) == 16 and counts.min() > 140 and counts.max() < 260


def test_num_states_and_encode():
    assert LightsOut(7).num_states == 2 ** 49
    assert LightsOut(5).num_states == 2 ** 23
    p = LightsOut(3)
    e = p.encode(p.random_states(4, np.random.default_rng(6)))
    assert e.shape == (4, 9) and e.dtype == np.int64 and set(np.unique(e)) <= {0, 1}
    assert p.num_symbols == 2


def test_parse_format_and_moves():
    p = LightsOut(3)
    s = p.parse("010 111 010")
    np.testing.assert_array_equal(s, [0, 1, 0, 1, 1, 1, 0, 1, 0])
    assert p.format(s) == "010111010"
    np.testing.assert_array_equal(p.parse("010/111/010"), s)
    assert p.optimal_solution(s) == [4]
    assert p.parse_moves("r1c1 r0c0, 8") == [4, 0, 8]
    assert p.parse_moves("R2C2") == [8]
    assert p.format_moves([4, 0, 8]) == "r1c1 r0c0 r2c2"
    assert p.pretty(s).splitlines() == [". # .", "# # #", ". # ."]


@pytest.mark.parametrize(
    ("size", "text", "pattern"),
    [
        (7, "0101", r"lightsout7 needs 49 lights \(7x7, a 0/1 string in row-major order\), got 4"),
        (3, "01010101x", r"lights must be 0 or 1, found 'x'"),
        (3, "010101012", r"found '2'"),
        (5, "1" + "0" * 24, r"unsolvable on the 5x5 board \(the press matrix has rank 23 of 25; only 1 in 4"),
        (4, "1" + "0" * 15, r"unsolvable on the 4x4 board .*1 in 16"),
        (9, "1" + "0" * 80, r"unsolvable on the 9x9 board"),
    ],
)
def test_parse_errors(size, text, pattern):
    with pytest.raises(InputError, match=pattern) as err:
        LightsOut(size).parse(text)
    assert "\n" not in str(err.value)


def test_move_and_constructor_errors():
    p = LightsOut(3)
    with pytest.raises(InputError, match="off the 3x3 board"):
        p.parse_moves("r3c0")
    with pytest.raises(InputError, match="cell 9 out of range"):
        p.parse_moves("9")
    with pytest.raises(InputError, match="'x1' is not a cell"):
        p.parse_moves("x1")
    with pytest.raises(InputError, match="size"):
        LightsOut(0)
    with pytest.raises(InputError, match="lights must be 0 or 1"):
        p.validate(np.full(9, 2))
    with pytest.raises(ValueError, match="actions must be"):
        p.apply(p.goal()[None, :], np.array([9]))


def test_registry_names():
    assert get_puzzle("lightsout7").cells == 49
    assert get_puzzle("lightsout5").num_states == 2 ** 23
    with pytest.raises(InputError, match="--goal"):
        get_puzzle("lightsout7", goal="blank-last")


# --------------------------------------------------------------------------- lights-on
def test_lights_on_values_admissible_and_consistent():
    p = LightsOut(4)
    h = LightsOn(p)
    assert h.admissible and h.consistent and h.name == "lights-on"
    dist = bfs_lengths(4)
    states = np.array([np.frombuffer(k, dtype=np.uint8) for k in dist])
    values = h(states)
    np.testing.assert_array_equal(values, np.ceil(states.sum(axis=1) / 5).astype(int))
    assert (values <= [dist[s.tobytes()] for s in states]).all()  # admissible
    ch, _ = p.expand(states)
    hc = h(ch.reshape(-1, p.cells)).reshape(len(states), p.cells)
    assert (np.abs(hc - values[:, None]) <= 1).all()  # consistent with unit costs
    assert h(p.goal())[0] == 0


def test_lights_on_spec_and_registry():
    p = get_puzzle("lightsout7")
    h = get_heuristic("lights-on", p)
    spec = h.ida_spec()
    assert spec.family == "lights" and spec.kind == "lights-on"
    with pytest.raises(InputError, match="does not apply"):
        get_heuristic("lights-on", get_puzzle("puzzle8"))
    with pytest.raises(ValueError, match="shape"):
        h(np.zeros((2, 5)))


@pytest.mark.parametrize("name", ["lightsout٧", "lightsout７", "lightsout1_0"])
def test_puzzle_names_with_non_ascii_digits_are_unknown(name):
    from core.registry import puzzle_entry

    with pytest.raises(InputError, match="unknown puzzle"):
        puzzle_entry(name)


@pytest.mark.parametrize("moves", ["r٠c0", "²", "r0c０"])
def test_moves_with_non_ascii_digits_are_refused(moves):
    with pytest.raises(InputError, match="MOVES"):
        LightsOut(3).parse_moves(moves)
