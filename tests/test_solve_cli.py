"""``bench solve``: the JSON contract, the readable summary, limits and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_run import run_cli as run

LIGHTS = "0100011100010000000000000"  # 5x5: a plus shape around r1c1 -> one press




KEYS = {"status", "length", "actions", "nodes_generated", "nodes_expanded", "h_start", "time_s",
        "load_s", "peak_rss_bytes", "heuristic", "solver"}


@pytest.mark.parametrize("solver", ["ida", "bwas", "astar", "greedy"])
def test_json_contract(capsys, solver):
    code, out, err = run(capsys, "solve", "lightsout5", LIGHTS, "--heuristic", "lights-on",
                         "--solver", solver, "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert KEYS <= set(rec)
    assert rec["status"] == "solved" and rec["length"] == 1 and rec["actions"] == ["r1c1"]
    assert rec["solver"] == solver and rec["heuristic"] == "lights-on" and rec["h_start"] == 1
    assert rec["nodes_generated"] >= 1 and rec["time_s"] >= 0 and rec["peak_rss_bytes"] >= 0


def test_scramble_and_summary(capsys):
    code, out, _ = run(capsys, "solve", "lightsout4", "--scramble", "r0c0 r2c3 r3c1",
                       "--heuristic", "lights-on", "--solver", "ida")
    assert code == 0
    assert "ida with lights-on: solved, length 3" in out and "nodes generated" in out
    assert "moves: r0c0 r2c3 r3c1" in out


def test_limits_give_statuses_with_exit_0(capsys):
    code, out, _ = run(capsys, "solve", "lightsout7", "--scramble",
                       "r0c0 r1c5 r2c2 r3c3 r4c1 r5c6 r6c0 r6c4 r2c5 r0c3",
                       "--heuristic", "lights-on", "--solver", "bwas", "--batch", "3",
                       "--node-limit", "10", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["status"] == "node-limit" and rec["actions"] is None
    assert rec["length"] is None
    code, out, _ = run(capsys, "solve", "lightsout7", "--scramble", "r0c0 r3c3 r6c6",
                       "--heuristic", "lights-on", "--solver", "astar", "--memory-limit", "0.001",
                       "--json")
    assert code == 0 and json.loads(out)["status"] == "out-of-memory"


@pytest.mark.parametrize("args, needle", [
    (["--weight", "1.5"], "--weight: must be in [0, 1]"),
    (["--weight", "x"], "--weight: expected a number"),
    (["--batch", "0"], "--batch: must be >= 1"),
    (["--batch", "2.5"], "--batch: expected an integer"),
    (["--time-limit", "0"], "--time-limit: must be > 0"),
    (["--node-limit", "-3"], "--node-limit: must be > 0"),
    (["--memory-limit", "nan"], "--memory-limit: expected a finite number"),
    (["--solver", "idastar"], "unknown solver 'idastar'"),
    (["--solver", "ida", "--weight", "0.5"], "--weight: applies to bwas/astar/greedy"),
    (["--model", "m.pt"], "--model: lights-on takes no model"),
    (["--goal", "blank-first"], "--goal"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, needle):
    code, out, err = run(capsys, "solve", "lightsout5", LIGHTS, "--heuristic", "lights-on", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("args, needle", [
    (["lightsout5", LIGHTS], "--heuristic: missing"),
    (["lightsout5", "--heuristic", "lights-on"], "STATE: missing"),
    (["lightsout5", LIGHTS, "--heuristic", "manhatan"], "unknown heuristic"),
    (["lightsout4", "1000000000000000", "--heuristic", "lights-on"], ""),
])
def test_bad_state_and_heuristic(capsys, args, needle):
    code, _, err = run(capsys, "solve", *args)
    assert code == 2 and err.count("\n") == 1 and needle in err


def test_subprocess_exit_status_and_no_traceback():
    res = subprocess.run([sys.executable, "-m", "bench", "solve", "lightsout5", LIGHTS,
                          "--heuristic", "lights-on", "--batch", "0"],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == "error: --batch: must be >= 1, got 0"


@pytest.mark.parametrize("puzzle, scramble, heuristic, extra", [
    ("cube2-htm", "R U2 F' R' U", "pdb-cube2", []),
    ("cube2", "L D B'", "pdb-cube2", []),  # turns of L, D, B are re-oriented to the DBL frame
    ("puzzle8", "D R D L", "manhattan", ["--goal", "blank-first"]),
])
def test_json_actions_are_move_names_that_solve_the_state(capsys, puzzle, scramble, heuristic,
                                                          extra):
    from core import registry

    code, out, err = run(capsys, "solve", puzzle, "--scramble", scramble, "--heuristic",
                         heuristic, "--solver", "ida", "--json", *extra)
    assert code == 0, err
    rec = json.loads(out)
    assert KEYS <= set(rec) and rec["status"] == "solved"
    p = registry.get_puzzle(puzzle, goal=extra[1] if extra else None)
    start = p.parse(rec["state"])
    assert rec["moves"] == " ".join(rec["actions"])
    assert p.check_solution(start, p.parse_moves(rec["moves"]))
    assert rec["length"] == len(rec["actions"]) <= len(p.parse_moves(scramble))
