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
    (["--weight", "100.5"], "--weight: must be in [0, 100]"),
    (["--weight", "x"], "--weight: expected a number"),
    (["--batch", "0"], "--batch: must be >= 1"),
    (["--batch", "2.5"], "--batch: expected an integer"),
    (["--time-limit", "0"], "--time-limit: must be > 0"),
    (["--node-limit", "-3"], "--node-limit: must be > 0"),
    (["--memory-limit", "nan"], "--memory-limit: expected a finite number"),
    (["--solver", "idastar"], "unknown solver 'idastar'"),
    (["--solver", "ida", "--weight", "0.5"], "--weight: applies to bwas/astar/greedy/qstar"),
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


# --------------------------------------------------------------------------- the default heuristic
def test_ida_without_heuristic_runs_the_puzzles_default_and_is_optimal(capsys):
    import numpy as np

    from core import registry
    from pdb_builders.catalog import tables_stored
    from suites.reference import bfs_distances

    p = registry.get_puzzle("puzzle8")
    start = p.scramble(1, 40, np.random.default_rng(3))[0]
    built = not tables_stored("puzzle8", "pdb-full")  # a small table: built here if absent
    code, out, err = run(capsys, "solve", "puzzle8", p.format(start[0]), "--solver", "ida",
                         "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and rec["heuristic"] == "pdb-full"
    assert rec["length"] == bfs_distances(p, start)[0] > 0  # breadth-first truth
    note = err.splitlines()[0]
    assert note.startswith("heuristic: pdb-full (the default for puzzle8: its strongest "
                           "admissible heuristic)")
    assert ("building its tables now" in note) == built
    code, _, err = run(capsys, "solve", "puzzle8", p.format(start[0]), "--solver", "ida")
    assert code == 0 and err.count("\n") == 1 and "building" not in err  # cached now


def test_astar_without_heuristic_runs_the_default_too(capsys):
    import numpy as np

    from core import registry
    from suites.reference import bfs_distances

    code, out, err = run(capsys, "solve", "cube2", "--scramble", "R U F' R U'", "--solver",
                         "astar", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["heuristic"] == "pdb-cube2" and rec["status"] == "solved"
    p = registry.get_puzzle("cube2")
    assert rec["length"] == bfs_distances(p, np.stack([p.parse(rec["state"])]))[0]
    assert "heuristic: pdb-cube2 (the default for cube2" in err
    code, out, err = run(capsys, "solve", "lightsout5", LIGHTS, "--solver", "ida", "--json")
    assert code == 0 and json.loads(out)["heuristic"] == "lights-on"
    assert err.strip() == "heuristic: lights-on (the default for lightsout5: its strongest " \
                          "admissible heuristic)"  # no tables to build


def test_the_cube3_default_is_named_before_its_tables_load(capsys, monkeypatch):
    from core import registry
    from core.errors import InputError

    loaded = []

    def no_tables(name, puzzle, **kw):  # the coset table is not built in tests
        loaded.append((name, kw))
        raise InputError("--heuristic: not loaded here")

    monkeypatch.setattr(registry, "get_heuristic", no_tables)
    code, out, err = run(capsys, "solve", "cube3", "--scramble", "R U", "--solver", "ida")
    assert code == 2 and out == ""
    assert loaded == [("pdb-coset", {"probe_inverse": "near", "corner_pdb": "corners"})]
    built, note, error = err.splitlines()  # the coset-eo tables are not in the tests' cache
    assert built.startswith("note: pdb-coset-eo2ep2 or pdb-coset-eo, the default once built (the "
                            "first built of these), is not built: bench pdb build cube3 "
                            "pdb-coset-eo2ep2 (")
    assert note.startswith("heuristic: pdb-coset --probe-inverse near --corner-pdb corners (the "
                           "default for cube3: its strongest")
    assert error == "error: --heuristic: not loaded here"
    # an option given keeps its value; the note names only the defaulted ones
    loaded.clear()
    code, _, err = run(capsys, "solve", "cube3-htm", "--scramble", "R U", "--solver", "astar",
                       "--corner-pdb", "none")
    assert code == 2 and loaded == [("pdb-coset", {"probe_inverse": "near", "corner_pdb": "none"})]
    # (an option that pdb-coset-eo does not take keeps pdb-coset, and no note)
    assert err.splitlines()[0].startswith("heuristic: pdb-coset --probe-inverse near (the default")
    # a heuristic given by name runs with its own defaults
    loaded.clear()
    code, _, err = run(capsys, "solve", "cube3", "--scramble", "R U", "--solver", "ida",
                       "--heuristic", "pdb-coset")
    assert code == 2 and loaded == [("pdb-coset", {})]


def test_the_note_says_when_tables_are_built(monkeypatch):
    import pdb_builders.catalog as catalog
    from bench.commands.solve import default_heuristic_note

    monkeypatch.setattr(catalog, "tables_stored", lambda puzzle, heuristic: False)
    note = default_heuristic_note("cube3-htm", "pdb-coset")
    assert note.endswith("; building its tables now, once (first use: about 20 s per metric, "
                         "78.6 M entries, 37.5 MiB)")
    monkeypatch.setattr(catalog, "tables_stored", lambda puzzle, heuristic: True)
    assert "building" not in default_heuristic_note("cube3-htm", "pdb-coset")


@pytest.mark.parametrize("args, needle", [
    (["sokoban", "#######/#.  $@#/#######", "--solver", "ida"],
     "sokoban's default heuristic sokoban-matching has no per-state kernel for ida (give one, "
     "or use --solver astar)"),
    (["cube4", "--scramble", "R", "--solver", "ida"], "unknown puzzle 'cube4'"),
    (["lightsout5", LIGHTS, "--solver", "bwas"], "--heuristic: missing (see bench list "
     "heuristics; with --solver ida/astar it defaults to the puzzle's strongest admissible one)"),
    (["lightsout5", LIGHTS, "--solver", "ida", "--heuristic", "policy"],
     "policy ranks moves and gives no distance estimate"),
    (["lightsout5", LIGHTS, "--solver", "ida", "--heuristic", "pdb-full"],
     "pdb-full does not apply to lightsout5"),
])
def test_without_a_usable_heuristic_one_line_exit_2(capsys, args, needle):
    code, out, err = run(capsys, "solve", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_list_heuristics_marks_each_puzzles_default(capsys):
    import re

    from core import registry

    code, out, _ = run(capsys, "list", "heuristics")
    assert code == 0
    marked: dict[str, str] = {}
    for line in out.splitlines():
        name, admissible = line.split()[:2]  # the columns parse as before
        assert name in registry.HEURISTICS and admissible in ("admissible", "inadmissible")
        m = re.search(r" \[default for ([^\]]+)\]", line)
        for puzzle in m.group(1).split(", ") if m else ():
            assert admissible == "admissible" and puzzle not in marked
            marked[puzzle] = name
    assert marked["puzzle8"] == "pdb-full" and marked["cube2"] == marked["cube2-htm"] == \
        "pdb-cube2"
    assert marked["cube3"] == marked["cube3-htm"] == "pdb-coset"
    assert marked == {p: registry.default_heuristic(p) for p in registry.PUZZLES}


def test_json_reports_certified_bound_and_memory(capsys):
    """``--json`` carries the row's certified lower bound (the strongest bound heuristic at
    hand, as a suite row has it) and both memory figures; the summary prints them."""
    from core import registry

    p = registry.get_puzzle("puzzle8")
    import numpy as np

    start = p.scramble(1, 14, np.random.default_rng(5))[0][0]
    code, out, err = run(capsys, "solve", "puzzle8", p.format(start), "--heuristic",
                         "manhattan", "--solver", "ida", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved"
    assert rec["lower_bound_from"] in registry.bound_heuristics("puzzle8")
    # admissible, at least the linear-conflict value, exact where the full table gave it
    conflicts = int(registry.get_heuristic("linear-conflict", p)(start[None, :])[0])
    assert conflicts <= rec["lower_bound"] <= rec["length"]
    if rec["lower_bound_from"] == "pdb-full":
        assert rec["lower_bound"] == rec["length"]
    assert rec["peak_rss_bytes"] >= 0 and rec["loaded_bytes"] >= 0
    assert rec["process_peak_rss_bytes"] > rec["peak_rss_bytes"]
    code, out, _ = run(capsys, "solve", "puzzle8", p.format(start), "--heuristic", "manhattan",
                       "--solver", "ida")
    assert f"certified lower bound {rec['lower_bound']} ({rec['lower_bound_from']})" in out
    assert "peak memory of the search" in out and "the process's peak" in out
