"""``bench show`` / ``bench scramble`` on Lights Out."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from puzzles.lightsout import LightsOut


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True)


def test_show_and_scramble():
    res = bench("show", "lightsout5", "--scramble", "r0c0 r2c2")
    assert res.returncode == 0, res.stderr
    p = LightsOut(5)
    state = p.parse(res.stdout.strip().splitlines()[-1])
    assert sorted(p.optimal_solution(state)) == [0, 12]
    res = bench("scramble", "lightsout7", "--depth", "10", "--count", "4", "--seed", "3")
    assert res.returncode == 0, res.stderr
    states = np.array([LightsOut(7).parse(x) for x in res.stdout.split()])
    assert states.shape == (4, 49)
    res = bench("scramble", "lightsout7", "--uniform", "--count", "2")
    assert res.returncode == 0 and len(res.stdout.split()) == 2


def test_bad_input_is_one_line_exit_2():
    for args, text in [
        (("show", "lightsout5", "1" + "0" * 24), "unsolvable on the 5x5 board"),
        (("show", "lightsout7", "0101"), "needs 49 lights"),
        (("show", "lightsout7", "--scramble", "r9c9"), "off the 7x7 board"),
        (("show", "lightsout7", "0" * 49, "--goal", "blank-last"), "--goal applies to sliding-tile"),
    ]:
        res = bench(*args)
        assert res.returncode == 2, res.stderr
        assert res.stderr.strip().count("\n") == 0 and "Traceback" not in res.stderr
        assert text in res.stderr
