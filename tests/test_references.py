"""Reference optimal lengths: DeepCubeA's published optimal solutions are replayed before they
are used, a run whose optimal-by-construction search disagrees with a reference fails, reports
count % optimal over every instance with a reference and fill references of older rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from runner_fakes import make_plan

from bench import report
from bench.executor import InlineExecutor
from bench.runner import ROWS, read_rows, run_plan
from core import registry
from core.errors import InputError
from suites.sources import deepcubea_optima, published_optima


def _tiles_with_solutions(n: int = 4):
    """``n`` 8-puzzles (blank-last goal) a few moves from the goal, with DeepCubeA-style
    solutions (letters name the direction the tile moves)."""
    from puzzles.npuzzle import deepcubea_tile_moves

    p = registry.get_puzzle("puzzle8", goal="blank-last")
    letters = {deepcubea_tile_moves([c])[0]: c for c in "UDLR"}
    rng = np.random.default_rng(0)
    states, moves = p.scramble(n, 6, rng)
    sols = []
    for s in states:
        h = registry.get_heuristic("manhattan", p)
        r = registry.get_solver("ida").solve(p, h, s)
        sols.append([letters[a] for a in r.actions])
    return p, states, sols


def test_published_solutions_become_references_after_replay():
    p, states, sols = _tiles_with_solutions()
    assert deepcubea_optima(p, "npuzzle", states, sols, "test") == [len(s) for s in sols]


def test_a_solution_that_misses_the_goal_refuses_the_references():
    p, states, sols = _tiles_with_solutions()
    bad = [list(s) for s in sols]
    bad[2] = bad[2][:-1]  # one move short: legal, but not at the goal
    with pytest.raises(InputError, match="state 2: the published optimal solution"):
        deepcubea_optima(p, "npuzzle", states, bad, "test")
    bad[2] = ["X"]
    with pytest.raises(InputError, match="state 2: optimal solution unreadable"):
        deepcubea_optima(p, "npuzzle", states, bad, "test")
    with pytest.raises(InputError, match="3 optimal solutions for 4 states"):
        deepcubea_optima(p, "npuzzle", states, sols[:3], "test")


def test_solutions_of_another_goal_or_metric_are_no_reference():
    p = registry.get_puzzle("puzzle8", goal="blank-first")
    states = p.scramble(2, 4, np.random.default_rng(1))[0]
    assert deepcubea_optima(p, "npuzzle", states, [["U"], ["D"]], "test") is None
    htm = registry.get_puzzle("cube3-htm")
    cubes = htm.scramble(1, 3, np.random.default_rng(1))[0]
    assert deepcubea_optima(htm, "cube3", cubes, [[["U", 1]]], "test") is None


def test_a_disagreeing_optimal_search_fails_the_run_and_keeps_its_rows(tmp_path):
    specs = [("1", "a", {"length": 12, "optimal": 12}), ("2", "a", {"length": 14, "optimal": 12}),
             ("3", "a", {"length": 15})]
    plan = make_plan(tmp_path, specs)
    with pytest.raises(InputError, match=r"korf100/2: a \(optimal by construction\) found "
                                         r"length 14, the reference \(instance set\) says 12"):
        run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"),
                 progress=False, prepare=False)
    assert len(read_rows(tmp_path / "run" / ROWS)) == 3


def _rows(**over) -> pd.DataFrame:
    base = {"instance_set": "s", "puzzle": "puzzle15", "goal": "blank-last", "heuristic": "davi",
            "solver": "beam", "params": "{}", "status": "solved", "nodes_generated": 10,
            "time_s": 0.1, "peak_rss_bytes": 1, "heuristic_nbytes": 1}
    rows = [{**base, "config": "net", "instance": "0", "length": 10, "optimal": 10},
            {**base, "config": "net", "instance": "1", "length": 12, "optimal": 10},
            {**base, "config": "net", "instance": "2", "length": None, "optimal": 10,
             "status": "timeout"},
            {**base, "config": "net", "instance": "3", "length": 9, "optimal": None}]
    return pd.DataFrame([{**r, **over} for r in rows])


def test_percent_optimal_counts_unsolved_instances_and_shows_its_denominator():
    summ = report.summarize(_rows(), ci=False)
    row = summ.iloc[0]
    assert (row["n_optimal"], row["n_reference"]) == (1, 3)
    assert row["optimal_pct"] == pytest.approx(100 / 3)
    assert row["mean_excess"] == 1.0  # over the solved instances with a reference
    table = report.display_table(summ)
    assert table[1][table[0].index("% optimal")] == "33.3 (1/3)"


def test_reports_keep_instance_sets_apart():
    a = _rows()
    b = _rows(instance_set="t", length=30, optimal=None)
    md = report.report_markdown(pd.concat([a, b], ignore_index=True))
    assert "## s (4 instances)" in md and "## t (4 instances)" in md
    assert "All instances" not in md


def test_a_reference_contradicted_by_an_optimal_search_is_an_error():
    df = _rows(solver="ida", heuristic="manhattan")
    df.loc[1, "length"] = 12  # IDA* says 12 where the instance set says 10
    with pytest.raises(InputError, match="s/1: net .* length 12, the reference"):
        report.with_reference_optima(df)


@pytest.mark.shared
def test_deepcubea_references_fill_older_rows(deepcubea):
    refs = published_optima("puzzle15", "blank-last")
    assert len(refs) == 500
    assert np.mean([v for v, _ in refs.values()]) == pytest.approx(52.022)
    state, (opt, source) = next(iter(refs.items()))
    df = _rows().iloc[:1].assign(optimal=None, state=state, length=opt + 2)
    out = report.with_reference_optima(df)
    assert out["optimal"].iat[0] == opt and out["optimal_from"].iat[0] == source
    assert source == "DeepCubeA's optimal solver"


@pytest.mark.shared
def test_cube3_references_are_the_pickles_solutions(deepcubea):
    from suites.schema import load_suite
    from suites.sources import load_instances

    iset = load_instances(load_suite("cube3"), "deepcubea", limit=1000)
    opts = [i.optimal for i in iset.instances]
    assert None not in opts and np.mean(opts) == pytest.approx(20.637)
    pub = [i.meta["published_length"] for i in iset.instances[:200]]
    assert sum(o == q for o, q in zip(opts[:200], pub, strict=True)) == 141  # DeepCubeA: 70.5%


@pytest.mark.shared
def test_published_table_sets_deepcubea_and_efficientcube_beside_ours(deepcubea):
    from suites.schema import load_suite
    from suites.sources import load_instances

    iset = load_instances(load_suite("cube3"), "deepcubea", limit=200)
    df = pd.DataFrame([{"instance_set": "deepcubea", "instance": i.id, "puzzle": "cube3",
                        "config": "x", "status": "solved", "length": i.optimal,
                        "optimal": i.optimal, "published_length": i.meta["published_length"]}
                       for i in iset.instances])
    table = report.published_table(df)
    assert table is not None
    rows = {(r[0], r[1]): r for r in table[1:]}
    assert rows[("DeepCubeA (results file)", "its BWAS, GPUs")][5] == "70.5 (141/200)"
    assert rows[("EfficientCube (per-instance results)", "beam 262,144, T4 GPU")][5] \
        == "69.5 (139/200)"
    json.dumps(table)


@pytest.mark.shared
def test_imported_sets_keep_their_references(deepcubea, tmp_path):
    from suites.sources import deepcubea_instances, import_deepcubea

    dest = import_deepcubea(deepcubea / "puzzle15", "puzzle15", tmp_path / "puzzle15.txt")
    p = registry.get_puzzle("puzzle15", goal="blank-last")
    imported = deepcubea_instances(p, dest, limit=5)
    direct = deepcubea_instances(p, deepcubea / "puzzle15" / "test_data_0.pkl", limit=5)
    assert [i.optimal for i in imported] == [i.optimal for i in direct]
    assert None not in [i.optimal for i in imported]
    assert {i.meta["optimal_source"] for i in imported} == {"DeepCubeA's optimal solver"}


def test_records_name_paths_without_the_machines_folders(tmp_path, monkeypatch):
    from core.paths import _ROOT, display_path, shared_dir

    assert display_path(_ROOT / "suites" / "cube3.toml") == "suites/cube3.toml"
    assert display_path(shared_dir() / "data" / "deepcubea" / "x.pkl") == \
        "shared/data/deepcubea/x.pkl"
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path / "c"))
    assert display_path(tmp_path / "c" / "instances" / "a.txt") == "cache/instances/a.txt"
    assert display_path("/elsewhere/deep/deepcubea/cube3/t.pkl") == "deepcubea/cube3/t.pkl"


def test_reference_solver_tables_set_ours_beside_the_published_solver() -> None:
    import pandas as pd

    from bench.report import solver_tables

    rows = pd.DataFrame([
        dict(instance_set="s", instance="0", config="ida", solver="ida", heuristic="manhattan",
             status="solved", length=10, optimal=10, nodes_generated=400, time_s=2.0,
             solver_nodes=800, solver_s=1.0),
        dict(instance_set="s", instance="1", config="ida", solver="ida", heuristic="manhattan",
             status="timeout", length=None, optimal=12, nodes_generated=600, time_s=3.0,
             solver_nodes=200, solver_s=5.0),
        dict(instance_set="s", instance="0", config="beam", solver="beam", heuristic="davi",
             status="solved", length=11, optimal=10, nodes_generated=9, time_s=0.1,
             solver_nodes=800, solver_s=1.0),
    ])
    totals, per = solver_tables(rows)
    assert [r[0] for r in totals[1:]] == ["ida"]  # beam search is not optimal by construction
    head = totals[0]
    row = dict(zip(head, totals[1], strict=True))
    assert row["solved optimally"] == "1/2"
    assert row["total s"] == "5.0" and row["reference total s"] == "6.0"
    assert row["nodes"] == "1,000" and row["reference nodes"] == "1,000"
    assert [r[3] for r in per[1:]] == ["10", "timeout"]
    assert solver_tables(rows.drop(columns=["solver_nodes"])) is None
