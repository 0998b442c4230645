"""Nothing is trusted unchecked: a resume sees changed model weights, reports replay every solved
row, a model's declared search must be one that can run, and options a heuristic does not take
are refused."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

from bench import runner
from bench.executor import InlineExecutor
from core import registry
from core.errors import InputError
from core.limits import Limits
from suites.schema import parse_suite

DAVI_SUITE = """
[suite]
name = "weights"
puzzle = "puzzle8"

[[instances]]
name = "s"
source = "scramble"
depth = [4]
count = 2
seed = 1

[[configs]]
name = "net"
heuristic = "davi"
solver = "bwas"
heuristic_args = {{ model = "{model}" }}
"""


def _weights_plan(tmp_path: Path):
    model = tmp_path / "net" / "model.pt"
    text = DAVI_SUITE.format(model=model)
    (tmp_path / "s.toml").write_text(text)
    suite = parse_suite(tmp_path / "s.toml", tomllib.loads(text))
    return model, lambda: runner.plan_run(suite)


def test_resume_refuses_rows_made_with_other_weights_at_the_same_path(tmp_path):
    model, plan = _weights_plan(tmp_path)
    model.parent.mkdir()
    model.write_bytes(b"first network")
    run_dir = tmp_path / "run"
    runner.run_plan(plan(), run_dir, InlineExecutor(fn="runner_fakes:solve"), progress=False,
                    prepare=False)
    rows = runner.read_rows(run_dir / runner.ROWS)
    assert rows and all(r["model_sha256"] for r in rows)
    # the same path, other weights: the rows of the first network must not be mixed in
    model.write_bytes(b"second network")
    with pytest.raises(InputError, match="other model weights"):
        runner.run_plan(plan(), run_dir, InlineExecutor(fn="runner_fakes:solve"),
                        resume=True, progress=False, prepare=False)
    model.write_bytes(b"first network")  # the same weights again: the rows are done
    summary = runner.run_plan(plan(), run_dir, InlineExecutor(fn="runner_fakes:solve"),
                              resume=True, progress=False, prepare=False)
    assert summary.skipped == len(rows) and summary.ran == 0


def test_model_digest_covers_multigoal_folders_and_ignores_plain_heuristics(tmp_path):
    (tmp_path / "g0").mkdir()
    (tmp_path / "tree.json").write_text("{}")
    (tmp_path / "g0" / "model.pt").write_bytes(b"a")
    first = runner.model_digest("puzzle8", "davi-multigoal", {"model": str(tmp_path)})
    (tmp_path / "g0" / "model.pt").write_bytes(b"b")
    assert first and first != runner.model_digest("puzzle8", "davi-multigoal",
                                                  {"model": str(tmp_path)})
    assert runner.model_digest("puzzle8", "manhattan", {}) is None


def test_every_model_backed_heuristic_declares_its_model_files(tmp_path):
    from core import registry

    for name, entry in registry.HEURISTICS.items():
        assert entry.props.needs_model == bool(entry.props.model_files), name
    onnx = tmp_path / "net.onnx"
    onnx.write_bytes(b"first")
    first = runner.model_digest("cube3", "onnx", {"model": str(onnx)})
    onnx.write_bytes(b"second")
    assert first and first != runner.model_digest("cube3", "onnx", {"model": str(onnx)})


# --------------------------------------------------------------------------- report replays
def _solved_row(key: str, state: np.ndarray, actions: str, length: int) -> dict:
    return {"key": key, "suite": "t", "profile": "default", "instance_set": "s",
            "instance": key, "config": "ida", "puzzle": "puzzle8", "goal": None,
            "heuristic": "manhattan", "solver": "ida", "params": "{}", "seed": 0,
            "status": "solved", "length": length,
            "optimal": 6, "actions": actions, "state": " ".join(str(int(v)) for v in state),
            "nodes_generated": 10, "nodes_expanded": 5, "time_s": 0.01,
            "peak_rss_bytes": 1, "heuristic_nbytes": 1}


def _run_with_rows(tmp_path: Path) -> Path:
    p = registry.get_puzzle("puzzle8")
    states, _ = p.scramble(1, 6, np.random.default_rng(1))
    sol = registry.get_solver("ida").run(p, registry.get_heuristic("manhattan", p), states[0],
                                        Limits())
    good = p.format_moves(sol.actions)
    first = p.format_moves([sol.actions[0]])
    rows = [
        _solved_row("good", states[0], good, sol.length),
        _solved_row("edited", states[0], first, 1),             # the "R", length 1
        _solved_row("long", states[0], good, sol.length + 3),   # a length its path disagrees with
        _solved_row("nopath", states[0], "", 0),
    ]
    run = tmp_path / "run"
    run.mkdir()
    (run / runner.ROWS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def test_report_replays_every_solved_row(tmp_path, capsys):
    run = _run_with_rows(tmp_path)
    df = runner.load_table(run)
    status = dict(zip(df["key"], df["status"], strict=True))
    assert status == {"good": "solved", "edited": "invalid", "long": "invalid",
                      "nopath": "invalid"}
    assert df.loc[df["key"] == "edited", "length"].isna().all()
    code, out, err = run_cli(capsys, "report", str(run))
    assert code == 0, err
    assert "do not replay" in err and "edited" in err and "long" in err
    table = (run / "results.csv").read_text()
    assert "replay: its path does not reach the goal" in table
    summary = (run / "summary.md").read_text()
    assert "| ida | 4 | 1 | 25.0 | invalid 3 |" in summary  # one solved, three invalid
    assert "invalid (3): s/edited, s/long, s/nopath" in summary


def test_paper_tables_read_replayed_rows(tmp_path):
    run = _run_with_rows(tmp_path)
    from bench import report

    df = report.with_reference_optima(runner.load_table(run))
    solved = df[df["status"] == "solved"]
    assert list(solved["key"]) == ["good"]
    assert (solved["length"] >= solved["optimal"]).all()


# --------------------------------------------------------------------------- declared searches
@pytest.mark.parametrize("search,words", [
    ({"solver": "quantum", "width": 4}, "unknown solver 'quantum'"),
    ({"solver": "ida"}, "ida"),
    ({"solver": "beam", "width": -3}, "width"),
    ({"solver": "beam", "precision": "float8"}, "precision"),
    ("beam", "not a table"),
])
def test_a_models_declared_search_that_cannot_run_is_an_error(search, words, tmp_path):
    import shutil

    from learning.model_store import SHIPPED_DIR, recommended_search

    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(SHIPPED_DIR / "puzzle8" / "model.pt", folder / "model.pt")
    (folder / "config.json").write_text(json.dumps({"search": search}))
    with pytest.raises(InputError, match=words):
        recommended_search("puzzle8", str(folder))


def test_a_model_without_a_declared_search_gets_the_default(tmp_path):
    import shutil

    from learning.model_store import SHIPPED_DIR, recommended_search

    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(SHIPPED_DIR / "puzzle8" / "model.pt", folder / "model.pt")
    assert recommended_search("puzzle8", str(folder))["source"] == "default"
    (folder / "config.json").write_text(json.dumps({"iteration": 3}))
    assert recommended_search("puzzle8", str(folder))["source"] == "default"


# --------------------------------------------------------------------------- options
@pytest.mark.parametrize("args,words", [
    (["--heuristic", "manhattan", "--m", "-5"], "--m: applies to"),
    (["--heuristic", "manhattan", "--model", "x"], "--model: manhattan takes no model"),
    (["--heuristic", "manhattan", "--precision", "bfloat16"], "--precision: applies to"),
])
def test_options_of_heuristics_that_do_not_take_them_are_refused(args, words, capsys):
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", *args)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert words in err, err


def test_suite_heuristic_args_a_heuristic_does_not_take_are_refused(tmp_path):
    text = DAVI_SUITE.format(model="x").replace('heuristic = "davi"', 'heuristic = "manhattan"')
    text = text.replace('solver = "bwas"', 'solver = "ida"')
    with pytest.raises(InputError, match="heuristic_args: model: manhattan takes no model"):
        parse_suite(tmp_path / "s.toml", tomllib.loads(text))


# --------------------------------------------------------------------------- PDB tables
PDB_SUITE = """
[suite]
name = "tables"
puzzle = "puzzle8"

[[instances]]
name = "s"
source = "scramble"
depth = [4]
count = 2
seed = 1

[[configs]]
name = "pdb"
heuristic = "pdb-44"
solver = "ida"

[[configs]]
name = "plain"
heuristic = "manhattan"
solver = "ida"
"""


def test_resume_refuses_rows_made_with_other_pdb_tables(tmp_path, monkeypatch):
    from pdb_builders import catalog, store

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path / "cache"))
    (tmp_path / "s.toml").write_text(PDB_SUITE)
    suite = parse_suite(tmp_path / "s.toml", tomllib.loads(PDB_SUITE))
    specs = catalog.find("puzzle8", "pdb-44").tables("puzzle8")
    # planned before the tables exist: no digest yet; filled once they are built
    tasks = runner.plan_run(suite).tasks
    assert all(t.meta["tables_sha256"] is None for t in tasks)
    for spec in specs:
        spec.build(progress=False)
    runner.fill_table_digests(tasks)
    first = {t.meta["config"]: t.meta["tables_sha256"] for t in tasks}
    assert first["plain"] is None and isinstance(first["pdb"], str) and len(first["pdb"]) == 16
    assert runner.table_digest("puzzle8", "pdb-44") == first["pdb"]
    assert runner.table_digest("puzzle8", "manhattan") is None

    run_dir = tmp_path / "run"
    runner.run_plan(runner.plan_run(suite), run_dir, InlineExecutor(fn="runner_fakes:solve"),
                    progress=False, prepare=False)
    rows = runner.read_rows(run_dir / runner.ROWS)
    assert {r["config"]: r["tables_sha256"] for r in rows} == first
    # a table rewritten with other values (its checksum attribute changes): the rows of the old
    # tables are not mixed in
    values = store.load_packed(specs[0].path, specs[0].attrs).values()
    old_bytes = specs[0].path.read_bytes()
    store.save_table(specs[0].path, (values + 1).astype(np.uint8), specs[0].attrs)
    assert runner.table_digest("puzzle8", "pdb-44") != first["pdb"]
    with pytest.raises(InputError, match="2 of them with other pattern-database tables"):
        runner.run_plan(runner.plan_run(suite), run_dir, InlineExecutor(fn="runner_fakes:solve"),
                        resume=True, progress=False, prepare=False)
    # --rerun-changed redoes only the rows of the PDB configuration
    again = runner.run_plan(runner.plan_run(suite), run_dir,
                            InlineExecutor(fn="runner_fakes:solve"), resume=True,
                            progress=False, prepare=False, rerun_changed=True)
    assert again.ran == 2 and again.skipped == 2
    # the first tables back: every row is done
    specs[0].path.write_bytes(old_bytes)
    runner.run_plan(runner.plan_run(suite), tmp_path / "run2",
                    InlineExecutor(fn="runner_fakes:solve"), progress=False, prepare=False)
    done = runner.run_plan(runner.plan_run(suite), tmp_path / "run2",
                           InlineExecutor(fn="runner_fakes:solve"), resume=True,
                           progress=False, prepare=False)
    assert done.ran == 0 and done.skipped == 4
