"""``bench show`` / ``bench scramble`` on sliding tiles, and their bad-input paths."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from puzzles.npuzzle import NPuzzle, solvable

KORF1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True)


def assert_one_line_error(res: subprocess.CompletedProcess[str], text: str) -> None:
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0
    assert res.stderr.startswith("error: ") and text in res.stderr


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("show", "puzzle15", "1,2,3"), "puzzle15 needs 16 numbers (4x4, 0 = blank), got 3"),
        (("show", "puzzle15", KORF1), "use --goal blank-first"),
        (("show", "puzzle8", "1,2,3,4,5,6,7,8,a"), "'a' is not an integer"),
        (("show", "puzzle8", "1,2,3,4,5,6,7,8,8"), "duplicate tiles 8; missing tiles 0"),
        (("show", "puzzle8", "--scramble", "UX"), "'X' is not a move"),
        (("show", "puzzle15", KORF1, "--goal", "middle"), "--goal: expected blank-first, blank-last or korf1982"),
        (("show", "lightsout7", "--goal", "blank-first"), "--goal applies to sliding-tile puzzles"),
        (("show", "cube3", "--goal", "blank-first"), "--goal applies to sliding-tile puzzles"),
        (("scramble", "puzzle15", "--uniform", "--depth", "3"), "--uniform: cannot be combined"),
        (("scramble", "puzzle15"), "--depth: required"),
    ],
)
def test_bad_input_exit_2_one_line(args, text):
    assert_one_line_error(bench(*args), text)


def test_show_blank_first():
    res = bench("show", "puzzle15", KORF1, "--goal", "blank-first")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert lines[-1] == KORF1.replace(" ", ",")
    assert "| 14 | 13 | 15 |  7 |" in lines


def test_scramble_depth_count_seed_and_moves():
    res = bench("scramble", "puzzle15", "--depth", "20", "--count", "3", "--seed", "1")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 3
    p = NPuzzle(4)
    states = np.array([p.parse(line) for line in lines])
    assert solvable(states, 4).all()
    res_m = bench("scramble", "puzzle15", "--depth", "20", "--count", "3", "--seed", "1", "--moves")
    assert res_m.returncode == 0, res_m.stderr
    moves = res_m.stdout.strip().splitlines()
    assert len(moves) == 3
    for s, m in zip(states, moves, strict=True):
        assert len(m.split()) == 20
        np.testing.assert_array_equal(p.from_moves(p.parse_moves(m)), s)
    again = bench("scramble", "puzzle15", "--depth", "20", "--count", "3", "--seed", "1")
    assert again.stdout == res.stdout


def test_scramble_uniform_and_goal():
    res = bench("scramble", "puzzle15", "--uniform", "--count", "5", "--seed", "2",
                "--goal", "blank-first")
    assert res.returncode == 0, res.stderr
    p = NPuzzle(4, goal="blank-first")
    states = np.array([p.parse(line) for line in res.stdout.strip().splitlines()])
    assert states.shape == (5, 16)
    assert not solvable(states, 4, "blank-last").any()


@pytest.mark.nojit
@pytest.mark.parametrize("goal, moves, bad", [("blank-last", "U U U", 3), ("blank-first", "U", 1),
                                              ("blank-first", "D R R R", 4)])
def test_scramble_moving_the_blank_off_the_board_is_input_error(goal, moves, bad):
    from core.errors import InputError

    p = NPuzzle(3, goal=goal)
    with pytest.raises(InputError, match=rf"MOVES: move {bad} \(\w\) cannot be made"):
        p.from_moves(p.parse_moves(moves))
    res = bench("show", "puzzle8", "--scramble", moves, "--goal", goal)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and f"move {bad}" in res.stderr
