"""``bench solve`` with a learned heuristic: best-first search takes it, IDA* refuses it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run_cli as _run

from core.registry import get_heuristic, get_puzzle, get_solver
from core.rows import COLUMNS, Row

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("davi-lights3")
    cfg = TrainConfig(puzzle="lightsout3", preset="tiny", batch=128, lr=3e-3, lr_decay=1.0,
                      k_max=9, epsilon=0.05, check_every=10, eval_per_depth=4, eval_depths=2)
    Trainer(cfg, out, puzzle=get_puzzle("lightsout3"), progress=False).train(10)
    return out / "model.pt"




@pytest.mark.parametrize("solver", ["bwas", "astar", "greedy"])
def test_best_first_with_a_network(capsys, model, solver):
    code, out, err = _run(capsys, "solve", "lightsout3", "--scramble", "r0c0 r1c2 r2c1",
                          "--heuristic", "davi", "--model", str(model), "--solver", solver,
                          "--batch", "4", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and rec["heuristic"] == "value-net (davi)"
    p = get_puzzle("lightsout3")
    start = p.parse(rec["state"])
    assert p.check_solution(start, rec["action_ids"]) and rec["load_s"] > 0


def test_ida_refuses_a_network(capsys, model):
    code, out, err = _run(capsys, "solve", "lightsout3", "--scramble", "r0c0",
                          "--heuristic", "davi", "--model", str(model), "--solver", "ida")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "ida needs a heuristic with a per-state kernel; value-net (davi) has none, use bwas/astar/greedy" in err


def test_bwas_evaluates_the_network_on_whole_batches(model):
    p = get_puzzle("lightsout3")
    h = get_heuristic("davi", p, model=str(model))
    sizes = []
    inner = h.__call__

    class Spy(type(h)):
        def __call__(self, states):
            sizes.append(len(states))
            return inner(states)

    h.__class__ = Spy
    s = p.random_states(1, np.random.default_rng(0))[0]
    r = get_solver("bwas", batch=50).solve(p, h, s)
    assert r.status == "solved"
    assert max(sizes) > 50  # one call per iteration over all new children of the batch


# --------------------------------------------------------------------------- bench train evaluate
def test_evaluation_is_a_resumable_suite_run(capsys, model, tmp_path):
    """``bench train evaluate`` is a suite of one model run by the suite runner: rows kept,
    resumable, never overwriting a finished evaluation."""
    run = tmp_path / "ev"
    args = ["train", "evaluate", "lightsout3", "--model", str(model), "--set", "uniform",
            "--count", "6", "--solver", "bwas", "--batch", "10", "--run-dir", str(run)]
    code, out, _ = _run(capsys, *args)
    assert code == 0
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["states"] == 6 and summary["solved"] == 1.0
    assert summary["optimal"] is not None  # GF(2) gives Lights Out's optima
    rows = [json.loads(x) for x in (run / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["status"] == "solved" for r in rows)
    assert all(r["length"] >= r["optimal"] for r in rows)
    # every column a run writes is one the row schema declares
    assert all(set(r) <= set(COLUMNS) for r in rows), set(rows[0]) - set(COLUMNS)
    assert (run / "evaluate.toml").is_file()
    # resuming runs nothing new and reports the same
    code, out2, _ = _run(capsys, *args, "--resume")
    assert code == 0 and json.loads(out2.strip().splitlines()[-1])["states"] == 6
    assert len((run / "rows.jsonl").read_text().splitlines()) == 6
    # a finished evaluation is never overwritten; other arguments are refused on resume
    code, _, err = _run(capsys, *args)
    assert code == 2 and "already holds an evaluation" in err and err.count("\n") == 1
    code, _, err = _run(capsys, *args[:-2], "--run-dir", str(run), "--count", "3", "--resume")
    assert code == 2 and "other arguments" in err


def test_evaluations_without_a_run_dir_never_share_a_folder(capsys, model, tmp_path, monkeypatch):
    """An evaluation started in the same second as another (whose default folder, named to the
    second, is taken) gets a folder of its own."""
    import datetime as dt

    monkeypatch.chdir(tmp_path)
    now = dt.datetime.now()
    taken = [tmp_path / "runs" / f"evaluate-lightsout3-{(now + dt.timedelta(seconds=k)):%Y%m%d-%H%M%S}"
             for k in range(4)]
    for folder in taken:
        folder.mkdir(parents=True)
        (folder / "evaluate.toml").write_text("# another evaluation\n")
    code, _, err = _run(capsys, "train", "evaluate", "lightsout3", "--model", str(model), "--set",
                        "uniform", "--count", "2", "--solver", "bwas", "--batch", "10")
    assert code == 0, err
    new = [p for p in (tmp_path / "runs").iterdir() if p not in taken]
    assert len(new) == 1 and new[0].name.endswith("-2") and (new[0] / "rows.jsonl").is_file()
    assert all((f / "evaluate.toml").read_text() == "# another evaluation\n" for f in taken)


def test_new_folder_takes_the_next_free_name(tmp_path):
    from core.paths import new_folder

    first, second = new_folder(tmp_path / "a" / "x"), new_folder(tmp_path / "a" / "x")
    assert (first.name, second.name) == ("x", "x-2") and first.is_dir() and second.is_dir()
    (tmp_path / "a" / "x-3").mkdir()
    assert new_folder(tmp_path / "a" / "x").name == "x-4"


def test_evaluation_names_a_model_in_the_checkout_by_its_path_there(monkeypatch, tmp_path):
    """A model inside the checkout is recorded by its path there (no machine's path in the
    rows), and found from any working folder; one elsewhere keeps its absolute path."""
    from bench.evaluate import evaluation_suite
    from core.paths import checkout_dir
    from learning.model_store import resolve_model

    inside = checkout_dir() / "heuristics" / "models" / "puzzle15"
    if not (inside / "model.pt").is_file():
        pytest.skip("the shipped puzzle15 model is not in this checkout")
    monkeypatch.chdir(tmp_path)
    suite = evaluation_suite(tmp_path / "ev.toml", "puzzle15", str(inside), "uniform", 2, 0,
                             "beam", {"width": 4}, "float32", None, None, None)
    recorded = next(iter(suite.configs.values())).heuristic_args["model"]
    assert recorded == "heuristics/models/puzzle15"
    assert resolve_model("puzzle15", recorded) == inside / "model.pt"
    elsewhere = tmp_path / "m"
    elsewhere.mkdir()
    (elsewhere / "model.pt").write_bytes((inside / "model.pt").read_bytes())
    suite = evaluation_suite(tmp_path / "ev2.toml", "puzzle15", "m", "uniform", 2, 0, "beam",
                             {"width": 4}, "float32", None, None, None)
    assert next(iter(suite.configs.values())).heuristic_args["model"] == str(elsewhere.resolve())


def test_the_row_schema_types_every_column_it_documents():
    assert set(Row.__annotations__) == set(COLUMNS)
