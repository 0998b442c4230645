"""Every bad cube input gets a one-line ``InputError`` naming the fault, from the API and the CLI."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from bench.cli import main
from core.errors import InputError
from puzzles.cube import Cube2, Cube3

SOLVED = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
SOLVED2 = "UUUURRRRFFFFDDDDLLLLBBBB"


def _set(text: str, changes: dict[int, str]) -> str:
    chars = list(text)
    for i, ch in changes.items():
        chars[i] = ch
    return "".join(chars)


# facelet indices (0-based): U9=8, R1=9, F3=20, U6=5, R2=10, U8=7, F2=19, U7=6, F1=18, L3=38, U5=4, R5=13
BAD_CUBE3 = {
    "wrong-length": (SOLVED[:-1], "expected 54 facelet letters"),
    "too-long": (SOLVED + "U", "expected 54 facelet letters"),
    "unknown-symbol": (_set(SOLVED, {0: "X"}), "unknown symbol 'X' at position 1"),
    "lowercase": (SOLVED.lower(), "unknown symbol 'u'"),
    "colour-counts": (_set(SOLVED, {0: "R"}), "wrong colour counts (U=8, R=10"),
    "wrong-centres": (_set(SOLVED, {4: "R", 13: "U"}), "wrong centres"),
    "duplicated-centres": (_set(SOLVED, {4: "R", 9: "U"}), "duplicated centres"),
    "impossible-corner": (_set(SOLVED, {8: "R", 9: "U"}), "impossible corner"),
    "duplicated-corner": (_set(SOLVED, {18: "R", 38: "F", 10: "L"}), "corner URF appears 2 times"),
    "twisted-corner": (_set(SOLVED, {8: "F", 9: "U", 20: "R"}), "a twisted corner"),
    "impossible-edge": (_set(SOLVED, {5: "D", 27: "U"}), "impossible"),
    "flipped-edge": (_set(SOLVED, {5: "R", 10: "U"}), "a flipped edge"),
    "parity": (_set(SOLVED, {10: "F", 19: "R"}), "odd permutation parity"),
}

BAD_CUBE2 = {
    "wrong-length": (SOLVED2[:-2], "expected 24 facelet letters"),
    "unknown-symbol": (_set(SOLVED2, {3: "?"}), "unknown symbol '?' at position 4"),
    "colour-counts": (_set(SOLVED2, {0: "D"}), "wrong colour counts"),
    # U4 R1 F2 hold the URF corner; swapping two of its stickers mirrors it
    "impossible-corner": (_set(SOLVED2, {3: "R", 4: "U"}), "impossible corner"),
    "twisted-corner": (_set(SOLVED2, {3: "F", 4: "U", 9: "R"}), "a twisted corner"),
}


@pytest.mark.nojit
@pytest.mark.parametrize("case", list(BAD_CUBE3))
def test_cube3_bad_facelets(case):
    text, message = BAD_CUBE3[case]
    with pytest.raises(InputError) as err:
        Cube3().parse(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("case", list(BAD_CUBE2))
def test_cube2_bad_facelets(case):
    text, message = BAD_CUBE2[case]
    with pytest.raises(InputError) as err:
        Cube2().parse(text)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text,message", [
    ("R U X", "unknown symbol 'X' at position 5"),
    ("R r", "unknown symbol 'r'"),
    ("R U4", "unknown symbol '4'"),
    ("M2", "unknown symbol 'M'"),
])
def test_bad_moves(text, message):
    for p in (Cube3("qtm"), Cube3("htm"), Cube2("qtm")):
        with pytest.raises(InputError, match=message):
            p.parse_moves(text)


def test_validate_rejects_bad_arrays():
    c = Cube3()
    state = c.goal()
    state[8], state[9], state[20] = 2, 0, 1
    with pytest.raises(InputError, match="twisted corner"):
        c.validate(state)
    with pytest.raises(InputError, match="expected 54 facelets"):
        c.validate(c.goal()[:53])
    bad = c.goal()
    bad[0] = 9
    with pytest.raises(InputError, match="colours must be 0..5"):
        c.validate(bad)


def test_bad_metric():
    with pytest.raises(InputError, match="metric: expected 'qtm' or 'htm'"):
        Cube3("stm")


def _cli(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


@pytest.mark.parametrize("puzzle,cases", [("cube3", BAD_CUBE3), ("cube2", BAD_CUBE2)])
def test_cli_bad_states_exit_2(capsys, puzzle, cases):
    for case, (text, message) in cases.items():
        code, out, err = _cli(capsys, "show", puzzle, text)
        assert code == 2, case
        assert err.startswith("error: ") and err.count("\n") == 1 and message in err, (case, err)
        assert out == ""


def test_cli_bad_scramble_exit_2(capsys):
    code, _, err = _cli(capsys, "show", "cube3", "--scramble", "R U Q")
    assert code == 2 and "unknown symbol 'Q'" in err and err.count("\n") == 1


def test_cli_show_scramble(capsys):
    code, out, err = _cli(capsys, "show", "cube3", "--scramble", "R U")
    assert code == 0 and err == ""
    c = Cube3()
    assert out.splitlines()[-1] == c.format(c.from_moves(c.parse_moves("R U")))
    code, out, _ = _cli(capsys, "show", "cube2-htm", "--scramble", "L2 D' B")
    assert code == 0 and len(out.splitlines()[-1]) == 24


def test_cli_list_puzzles(capsys, monkeypatch):
    from core import registry

    cubes = {k: v for k, v in registry.PUZZLES.items() if k.startswith("cube")}
    monkeypatch.setattr(registry, "PUZZLES", cubes)  # the other families are tested by their owners
    code, out, _ = _cli(capsys, "list", "puzzles")
    assert code == 0
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip()}
    assert "43,252,003,274,489,856,000" in lines["cube3"] and "12 actions" in lines["cube3"]
    assert "3,674,160" in lines["cube2-htm"] and "9 actions" in lines["cube2-htm"]


def test_cli_scramble_uniform_cube(capsys):
    code, out, _ = _cli(capsys, "scramble", "cube3", "--uniform", "--count", "3", "--seed", "1")
    assert code == 0
    for line in out.split():
        Cube3().parse(line)


def test_cli_badstring_subprocess():
    res = subprocess.run([sys.executable, "-m", "bench", "show", "cube3", "BADSTRING"],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert "expected 54 facelet letters" in res.stderr


def test_cube2_validate_wants_the_dbl_frame():
    c = Cube2()
    rotated = c.goal()[c._rotation_perms[1:]]  # the solved cube turned as a whole
    moved = [r for r in rotated if not np.array_equal(r, c.goal())]
    assert moved
    with pytest.raises(InputError, match="DBL corner is not in place"):
        c.validate(moved[0])
    assert np.array_equal(c.parse(c.format(moved[0])), c.goal())


@pytest.mark.nojit
@pytest.mark.parametrize("puzzle, text", [(Cube3(), "D"), (Cube3(), "RUF"), (Cube2(), "R")])
def test_bare_face_letters_hint_at_scramble(puzzle, text):
    with pytest.raises(InputError) as err:
        puzzle.parse(text)
    msg = str(err.value)
    assert f"got {len(text)}; for the moves {text!r} from solved use --scramble {text!r}" in msg
    assert "\n" not in msg
    # the same letters given as moves are the state the hint points to
    moves = puzzle.parse_moves(text)
    assert len(moves) == len(text)
    undo = [puzzle.inverse_action(a) for a in reversed(moves)]
    assert puzzle.check_solution(puzzle.from_moves(moves), undo)


def test_cli_bare_move_as_state_hints_at_scramble(capsys):
    code, _, err = _cli(capsys, "show", "cube3", "D")
    assert code == 2 and err.count("\n") == 1
    assert "use --scramble 'D'" in err
