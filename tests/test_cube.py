"""Cube puzzles: golden facelet strings, group properties, cubie conversion, parsing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from core import registry
from puzzles.cube import (
    CORNER_NAMES,
    EDGE_NAMES,
    Cube2,
    Cube3,
    face_turn_perm,
)

SOLVED = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
GOLDEN = {
    "R": "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB",
    "U": "UUUUUUUUUBBBRRRRRRRRRFFFFFFDDDDDDDDDFFFLLLLLLLLLBBBBBB",
    "F": "UUUUUULLLURRURRURRFFFFFFFFFRRRDDDDDDLLDLLDLLDBBBBBBBBB",
}
NAMES = ["cube3", "cube3-htm", "cube2", "cube2-htm"]


@pytest.fixture(params=NAMES)
def puzzle(request):
    return registry.get_puzzle(request.param)


def test_registry_shapes(puzzle):
    n = puzzle.size
    assert puzzle.state_dim == 6 * n * n
    assert puzzle.num_actions == {"cube3": 12, "cube3-htm": 18, "cube2": 6, "cube2-htm": 9}[puzzle.name]
    assert len(puzzle.action_names) == puzzle.num_actions
    assert puzzle.num_states == {3: 43_252_003_274_489_856_000, 2: 3_674_160}[n]
    assert puzzle.num_symbols == 6


@pytest.mark.nojit
@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_golden_strings(metric):
    c = Cube3(metric)
    assert c.format(c.goal()) == SOLVED
    for move, text in GOLDEN.items():
        assert c.format(c.from_moves(c.parse_moves(move))) == text
        assert np.array_equal(c.parse(text), c.from_moves(c.parse_moves(move)))


def test_cube2_solved_and_turns():
    c = Cube2()
    assert c.format(c.goal()) == "UUUURRRRFFFFDDDDLLLLBBBB"
    # R on a 2x2x2: the right column of U takes F's colours, like on the 3x3x3
    assert c.format(c.from_moves([c.action_of(1, 1)])) == "UFUFRRRRFDFDDBDBLLLLUBUB"


@pytest.mark.nojit
def test_action_order_documented():
    q, h = Cube3("qtm"), Cube3("htm")
    assert q.action_names == ("U", "U'", "R", "R'", "F", "F'", "D", "D'", "L", "L'", "B", "B'")
    assert h.action_names[:6] == ("U", "U'", "U2", "R", "R'", "R2")
    for a in range(12):
        assert q.face_of(a) == a // 2 and q.ACTION_POWER[a] == (1, 3)[a % 2]
    for a in range(18):
        assert h.face_of(a) == a // 3 and h.ACTION_POWER[a] == (1, 3, 2)[a % 3]
    c2 = Cube2("htm")
    assert c2.action_names == ("U", "U'", "U2", "R", "R'", "R2", "F", "F'", "F2")
    assert list(c2.ACTION_FACE) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_group_properties(puzzle):
    rng = np.random.default_rng(1)
    s = puzzle.random_states(20, rng)
    for a in range(puzzle.num_actions):
        acts = np.full(len(s), a)
        back = puzzle.apply(puzzle.apply(s, acts), np.full(len(s), puzzle.inverse_action(a)))
        assert np.array_equal(back, s)
        assert puzzle.inverse_action(puzzle.inverse_action(a)) == a
        assert puzzle.face_of(puzzle.inverse_action(a)) == puzzle.face_of(a)
        t = s
        for k in range(4):
            t = puzzle.apply(t, acts)
            assert np.array_equal(t, s) == (k == 3 or (k == 1 and puzzle.ACTION_POWER[a] == 2))
    if puzzle.metric == "htm":
        for f in puzzle.faces:
            q = puzzle.action_of(f, 1)
            half = puzzle.action_of(f, 2)
            twice = puzzle.apply(puzzle.apply(s, np.full(len(s), q)), np.full(len(s), q))
            assert np.array_equal(twice, puzzle.apply(s, np.full(len(s), half)))


def test_opposite_faces_commute_and_neighbours_do_not():
    c = Cube3("qtm")
    s = c.random_states(5, np.random.default_rng(2))

    def both(a, b):
        return c.apply(c.apply(s, np.full(5, a)), np.full(5, b))

    U, R, D = c.action_of(0, 1), c.action_of(1, 1), c.action_of(3, 1)
    assert np.array_equal(both(U, D), both(D, U))
    assert not np.array_equal(both(U, R), both(R, U))


def _distinct_at_depths(puzzle, depth):
    frontier = puzzle.goal()[None, :]
    seen = {frontier[0].tobytes()}
    counts = []
    for _ in range(depth):
        children, _ = puzzle.expand(frontier)
        children = children.reshape(-1, puzzle.state_dim)
        new = {}
        for ch in children:
            key = ch.tobytes()
            if key not in seen and key not in new:
                new[key] = ch
        seen.update(new)
        counts.append(len(new))
        frontier = np.array(list(new.values()))
    return counts


@pytest.mark.parametrize("name,expected", [("cube3", [12, 114]), ("cube3-htm", [18, 243]),
                                           ("cube2", [6, 27]), ("cube2-htm", [9, 54])])
def test_distinct_states_at_depth(name, expected):
    assert _distinct_at_depths(registry.get_puzzle(name), 2) == expected


def test_expand_matches_apply(puzzle):
    s = puzzle.random_states(7, np.random.default_rng(3))
    children, valid = puzzle.expand(s)
    assert children.shape == (7, puzzle.num_actions, puzzle.state_dim) and valid.all()
    for a in range(puzzle.num_actions):
        assert np.array_equal(children[:, a], puzzle.apply(s, np.full(7, a)))
    assert children.dtype == np.uint8


def test_apply_rejects_bad_actions(puzzle):
    with pytest.raises(ValueError, match="out of range"):
        puzzle.apply(puzzle.goal()[None, :], np.array([puzzle.num_actions]))
    with pytest.raises(ValueError, match="shape"):
        puzzle.apply(np.zeros((1, 5), np.uint8), np.array([0]))


# ----------------------------------------------------------------------------- cubies
def test_cubie_names_follow_kociemba():
    assert CORNER_NAMES == ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
    assert EDGE_NAMES[:4] == ("UR", "UF", "UL", "UB") and EDGE_NAMES[8:] == ("FR", "FL", "BL", "BR")
    c = Cube3()
    # Kociemba's facelet tables (U9 R1 F3 for URF, U6 R2 for UR, B6 L4 for BL, ...)
    assert c.corner_facelets[0].tolist() == [8, 9, 20]
    assert c.corner_facelets[6].tolist() == [33, 53, 42]
    assert c.edge_facelets[0].tolist() == [5, 10]
    assert c.edge_facelets[10].tolist() == [50, 39]


def test_cubie_moves_match_kociemba_R():
    c = Cube3("qtm")
    m = c.CUBIE_MOVES
    r = c.action_of(1, 1)
    # Kociemba's R: cp {DFR, UFL, ULB, URF, DRB, DLF, DBL, UBR}, co {2,0,0,1,1,0,0,2}
    assert m.cp[r].tolist() == [4, 1, 2, 0, 7, 5, 6, 3]
    assert m.co[r].tolist() == [2, 0, 0, 1, 1, 0, 0, 2]
    assert m.ep[r].tolist() == [8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0]
    assert m.eo[r].tolist() == [0] * 12
    f = c.action_of(2, 1)
    assert m.eo[f].tolist() == [0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0]


def test_cubies_round_trip_and_move_consistency(puzzle):
    rng = np.random.default_rng(4)
    s = puzzle.random_states(50, rng)
    parts = puzzle.to_cubies(s)
    assert np.array_equal(puzzle.from_cubies(*parts), s)
    goal_parts = puzzle.to_cubies(puzzle.goal())
    assert np.array_equal(goal_parts[0][0], np.arange(8)) and not goal_parts[1].any()
    for a in range(puzzle.num_actions):
        acts = np.full(len(s), a)
        lhs = puzzle.to_cubies(puzzle.apply(s, acts))
        rhs = puzzle.apply_cubies(*[p.astype(np.int64) for p in parts], acts)
        for x, y in zip(lhs, rhs, strict=True):
            assert np.array_equal(x, y)


def test_random_states_are_valid_and_spread():
    for p in (Cube3(), Cube2()):
        s = p.random_states(200, np.random.default_rng(5))
        for st in s:
            p.validate(st)
        assert len({st.tobytes() for st in s}) == 200
        cp = p.to_cubies(s)[0]
        # every corner shows up in slot URF over 200 draws (cube2: all but the fixed DBL)
        expect = set(range(8)) - ({6} if p.size == 2 else set())
        assert set(cp[:, 0].tolist()) == expect


def test_random_states_seeded():
    c = Cube3()
    a = c.random_states(3, np.random.default_rng(7))
    b = c.random_states(3, np.random.default_rng(7))
    assert np.array_equal(a, b)


def test_scramble_replays(puzzle):
    states, moves = puzzle.scramble(4, 6, np.random.default_rng(8))
    for s, m in zip(states, moves, strict=True):
        assert np.array_equal(puzzle.from_moves(m), s)
        inv = [puzzle.inverse_action(int(a)) for a in m[::-1]]
        assert puzzle.check_solution(s, inv)


def test_scramble_never_undoes_and_is_uniform():
    c = Cube3("htm")
    s, m = c.scramble(6000, 3, np.random.default_rng(11))
    assert m.shape == (6000, 3) and s.dtype == np.uint8
    assert not (m[:, 1:] == c.INVERSE[m[:, :-1]]).any()
    counts = np.bincount(m[:, 0], minlength=18)
    assert counts.min() > 6000 / 18 * 0.75 and counts.max() < 6000 / 18 * 1.25
    after_r = m[:, 1][m[:, 0] == c.action_of(1, 1)]
    assert set(after_r.tolist()) == set(range(18)) - {c.action_of(1, 3)}


# ----------------------------------------------------------------------------- parsing
@pytest.mark.nojit
def test_move_spellings():
    q, h = Cube3("qtm"), Cube3("htm")
    ref = h.from_moves(h.parse_moves("R U' F2 D"))
    for text in ["R U' F2 D", "R1 U3 F2 D1", "R U- F2 D", "R1U3F2D1", "R,U',F2,D", "R U3 F2' D+"]:
        assert np.array_equal(h.from_moves(h.parse_moves(text)), ref), text
        assert np.array_equal(q.from_moves(q.parse_moves(text)), ref), text
    assert q.parse_moves("R2") == [2, 2]
    assert h.parse_moves("R2") == [5]
    assert q.parse_moves("B3L3D3F1") == [11, 9, 7, 4]


def test_parse_accepts_moves_and_format_round_trips(puzzle):
    s = puzzle.parse("R U R' U' F2")
    assert np.array_equal(s, puzzle.from_moves(puzzle.parse_moves("R U R' U' F2")))
    assert np.array_equal(puzzle.parse(puzzle.format(s)), s)
    for st in puzzle.random_states(10, np.random.default_rng(9)):
        assert np.array_equal(puzzle.parse(puzzle.format(st)), st)


def test_published_scramble_files_parse(shared):
    c = Cube3("htm")
    lines = [ln for ln in (shared / "instances" / "cube3_vcube16_htm.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 16
    for ln in lines:
        head, scramble, solution = (x.strip() for x in ln.split("|"))
        state = c.parse(scramble)
        sol = c.parse_moves(solution)
        assert len(sol) == int(head.split()[1])
        assert c.check_solution(state, sol)
        q = Cube3("qtm")
        assert q.check_solution(q.parse(scramble), q.parse_moves(solution))


def test_qtm26_file_parses(shared):
    q = Cube3("qtm")
    line = [ln for ln in (shared / "instances" / "cube3_qtm26.txt").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")][0]
    _, length, *moves = line.split()
    actions = q.parse_moves(" ".join(moves))
    assert len(actions) == int(length) == 26
    state = q.from_moves(actions)
    inverse = [q.inverse_action(a) for a in reversed(actions)]
    assert q.check_solution(state, inverse)


def test_pretty(puzzle):
    s = puzzle.parse("R U")
    plain = puzzle.pretty(s)
    lines = plain.splitlines()
    assert len(lines) == 3 * puzzle.size
    letters = "".join(ch for ch in plain if ch in "URFDLB")
    assert sorted(letters) == sorted(puzzle.format(s))
    coloured = puzzle.pretty(s, color=True)
    assert "\x1b[" in coloured and "\x1b[" not in plain


def test_cube2_reorients_other_faces_and_orientations():
    c = Cube2("htm")
    # L = R plus a whole-cube rotation, so L and R give the same DBL-fixed state
    assert np.array_equal(c.from_moves(c.parse_moves("L")), c.from_moves(c.parse_moves("R")))
    rng = np.random.default_rng(10)
    for _ in range(100):
        toks = [(int(rng.integers(6)), int(rng.choice([1, 2, 3]))) for _ in range(int(rng.integers(1, 12)))]
        st = c.goal()
        for f, q in toks:
            st = st[face_turn_perm(2, f, q)]
        text = " ".join("URFDLB"[f] + {1: "", 2: "2", 3: "'"}[q] for f, q in toks)
        got = c.from_moves(c.parse_moves(text))
        assert np.array_equal(got, c.reorient(st))
        # the same cube given as facelets in its own (unfixed) orientation
        assert np.array_equal(c.parse("".join("URFDLB"[x] for x in st)), got)
        c.validate(got)


def test_korf10_file_parses(shared):
    h = Cube3("htm")
    lines = [ln for ln in (shared / "instances" / "cube3_korf10_htm.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 10
    for ln in lines:
        _, *moves = ln.split()
        actions = h.parse_moves(" ".join(moves))
        assert len(actions) == len(moves) == 100
        state = h.parse(" ".join(moves))
        h.validate(state)
        assert h.check_solution(state, [h.inverse_action(a) for a in reversed(actions)])


@given(hst.lists(hst.tuples(hst.integers(0, 5), hst.sampled_from(["", "'", "2", "-", "3", "1"])),
                max_size=25))
@settings(max_examples=60, deadline=None)
def test_move_text_round_trip(moves):
    """Any spelling parses; formatting and re-parsing is the identity; the inverse path solves."""
    text = " ".join("URFDLB"[f] + s for f, s in moves)
    for p in (Cube3("qtm"), Cube3("htm")):
        actions = p.parse_moves(text)
        assert p.parse_moves(p.format_moves(actions)) == actions
        assert p.parse_moves(text.replace(" ", "")) == actions
        state = p.from_moves(actions)
        assert p.check_solution(state, [p.inverse_action(a) for a in reversed(actions)])
    q, h = Cube3("qtm"), Cube3("htm")
    assert np.array_equal(q.from_moves(q.parse_moves(text)), h.from_moves(h.parse_moves(text)))
