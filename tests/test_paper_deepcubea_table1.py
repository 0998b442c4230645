"""``bench paper deepcubea-table1``: the states farthest from the goal, from tiny finished runs."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bench import papers
from bench.cli import main
from core.errors import InputError


def _run(run_dir, suite, puzzle, instance_set, results):
    """A finished run: ``results`` maps a configuration to ``(instance, status, length,
    optimal, nodes, seconds)`` rows."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "rows.jsonl").open("a") as f:
        for cfg, rows in results.items():
            for inst, status, length, optimal, nodes, secs in rows:
                f.write(json.dumps({"key": f"{instance_set}/{inst}/{cfg}", "suite": suite,
                                    "config": cfg, "puzzle": puzzle,
                                    "instance_set": instance_set, "instance": inst,
                                    "status": status, "length": length, "optimal": optimal,
                                    "nodes_generated": nodes, "time_s": secs,
                                    "limit_time_s": 60.0, "peak_rss_bytes": 1,
                                    "heuristic_nbytes": 1}) + "\n")
    return run_dir


@pytest.fixture
def runs(tmp_path):
    cube = _run(tmp_path / "cube", "cube3", "cube3", "qtm26", {"learned": [
        ("1", "solved", 26, 26, 1_000, 10.0), ("1-x", "solved", 28, 26, 3_000, 20.0),
        ("1-z", "timeout", None, 26, 9_000, 60.0)]})
    tiles = _run(tmp_path / "tiles", "puzzle15", "puzzle15", "hardest17", {
        "learned": [("1", "solved", 80, 80, 500, 1.0), ("2", "solved", 84, 80, 700, 3.0)],
        "pdb-663-ida": [("1", "solved", 80, 80, 10**9, 50.0), ("2", "solved", 80, 80, 10**9, 70.0)]})
    return cube, tiles


def test_table1_from_finished_runs(tmp_path, runs):
    cube, tiles = runs
    text = papers.make("deepcubea-table1", run_dir=[cube, tiles], out=tmp_path / "out",
                      command="bench paper deepcubea-table1 --run C --run T")
    assert "Command: `bench paper deepcubea-table1 --run C --run T`" in text
    # puzzle, instances, solver, states, solved, mean length, optimal length, mean excess,
    # % optimal, mean nodes, mean seconds
    assert "| cube3 | qtm26 | ours: learned | 3 | 2/3 | 27 | 26 | 1 | 33.3 (1/3) | 2000 | 15 |" in text
    assert "| cube3 | qtm26 | DeepCubeA (paper) | 3 | not recorded | not recorded | 26 | " \
           "not recorded | not recorded | not recorded | not recorded |" in text
    assert "| puzzle15 | hardest17 | ours: learned | 2 | 2/2 | 82 | 80 | 2 | 50.0 (1/2) | 600 | 2 |" in text
    assert "| puzzle15 | hardest17 | ours: pdb-663-ida | 2 | 2/2 | 80 | 80 | 0 | 100.0 (2/2) | " \
           "1,000,000,000 | 60 |" in text
    assert "| puzzle15 | hardest17 | DeepCubeA (paper) | 17 | not recorded | not recorded | 80 | " \
           "2.8 | 17.6 | not recorded | not recorded |" in text
    assert f"Ours, cube3: `{cube}`, 3 of the 3 cubes at distance 26" in text
    assert "60 s per state" in text
    # one row per state: its length, or how the search ended
    assert "| cube3 | 1-z | 26 | timeout |" in text
    assert "| puzzle15 | 2 | 80 | 84 | 80 |" in text
    table = pd.read_csv(tmp_path / "out" / "deepcubea-table1" / "table.csv")
    row = table[(table["puzzle"] == "puzzle15") & (table["solver"] == "ours: learned")].iloc[0]
    assert float(row["mean excess"]) == 2 and row["% optimal"] == "50.0 (1/2)"


def test_table1_states_the_limit_and_outcome_of_a_configuration_that_solved_none(tmp_path):
    cube = _run(tmp_path / "cube", "cube3", "cube3", "qtm26", {
        "learned": [("1", "solved", 26, 26, 1_000, 10.0), ("1-x", "timeout", None, 26, 9_000, 60.0)],
        "pdb-coset-ida": [("1", "timeout", None, 26, 4_000_000, 180.0),
                          ("1-x", "timeout", None, 26, 6_000_000, 180.0)]})
    rows = [json.loads(x) for x in (cube / "rows.jsonl").read_text().splitlines()]
    for r in rows:
        if r["config"] == "pdb-coset-ida":
            r["limit_time_s"] = 180.0
    (cube / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = papers.make("deepcubea-table1", run_dir=cube, out=tmp_path / "out")
    assert "| cube3 | qtm26 | ours: pdb-coset-ida | 2 | 0/2 | - | 26 | - | 0.0 (0/2) | - | - |" in text
    assert "learned 60 s, pdb-coset-ida 180 s per state." in text
    assert ("`pdb-coset-ida` solved none (2 timeout); it generated 5,000,000 nodes a state on "
            "average before it stopped.") in text
    assert "| cube3 | 1-x | 26 | timeout | timeout |" in text


def test_table1_with_one_run_marks_the_other_puzzle(tmp_path, runs):
    cube, _ = runs
    text = papers.make("deepcubea-table1", run_dir=cube, out=tmp_path / "out")
    assert "| puzzle15 | hardest17 | ours | not run here |" in text
    assert "| puzzle15 | hardest17 | DeepCubeA (paper) | 17 |" in text


def test_table1_refuses_bad_runs(tmp_path, runs):
    cube, tiles = runs
    out = tmp_path / "out"
    with pytest.raises(InputError, match="both runs of suite cube3; give one per suite"):
        papers.make("deepcubea-table1", run_dir=[cube, cube], out=out)
    other = _run(tmp_path / "p8", "puzzle8", "puzzle8", "scramble", {"c": [("0", "solved", 4, 4, 1, 0.1)]})
    with pytest.raises(InputError, match="is not a run of suite cube3 or puzzle15"):
        papers.make("deepcubea-table1", run_dir=[other], out=out)
    short = _run(tmp_path / "short", "cube3", "cube3", "scramble-short",
                 {"c": [("0", "solved", 8, 8, 1, 0.1)]})
    with pytest.raises(InputError, match="has no rows on instance set qtm26"):
        papers.make("deepcubea-table1", run_dir=[short], out=out)
    with pytest.raises(InputError, match="--profile: deepcubea-table1 reads the runs given"):
        papers.make("deepcubea-table1", run_dir=[cube], out=out, profile="hardest")
    with pytest.raises(InputError, match="--limit: deepcubea-table1 reads the runs given"):
        papers.make("deepcubea-table1", run_dir=[cube], out=out, limit=1)
    with pytest.raises(InputError, match="--count: applies to"):
        papers.make("deepcubea-table1", run_dir=[cube], out=out, count=3)
    with pytest.raises(InputError, match="--profile: suite cube3 has no profile 'nope'"):
        papers.make("deepcubea-table1", out=out, profile="nope")


def _cli(args, capsys):
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr()


@pytest.mark.parametrize("extra,words", [
    (["--profile", "hardest"], "--profile: deepcubea-table1 reads the runs given with --run"),
    (["--limit", "1"], "--limit: deepcubea-table1 reads the runs given with --run"),
    (["--run", "RUN"], "both runs of suite cube3"),
    (["--run", "/nonexistent"], "--run: /nonexistent is not a folder"),
])
def test_cli_refuses_bad_input_in_one_line(tmp_path, runs, capsys, extra, words):
    cube, _ = runs
    extra = [str(cube) if a == "RUN" else a for a in extra]
    code, out = _cli(["paper", "deepcubea-table1", "--run", str(cube), *extra,
                      "--out", str(tmp_path / "out")], capsys)
    assert code == 2, out.err
    assert "Traceback" not in out.err and out.err.count("\n") == 1, out.err
    assert out.err.startswith("error: ") and words in out.err, out.err


def test_cli_writes_the_table(tmp_path, runs, capsys):
    cube, tiles = runs
    code, out = _cli(["paper", "deepcubea-table1", "--run", str(cube), "--run", str(tiles),
                      "--out", str(tmp_path / "out")], capsys)
    assert code == 0, out.err
    assert "| puzzle15 | hardest17 | ours: pdb-663-ida | 2 | 2/2 |" in out.out
    assert (tmp_path / "out" / "deepcubea-table1" / "table.md").is_file()
