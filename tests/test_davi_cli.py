"""``bench train`` and ``bench models`` through the command line; a trained model in ``bench solve``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from unittest import mock

import pandas as pd
import pytest
import torch

from learning.checkpoint import load_checkpoint

TINY = ["--batch", "64", "--preset", "tiny", "--check-every", "10", "--eval-per-depth", "5",
        "--threads", "1", "--quiet"]


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``bench ARGS`` in this process (``bench.cli.main``: exit codes and stderr as from the
    shell; the fixture ``run8`` runs a real subprocess)."""
    import contextlib
    import io

    from bench.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with mock.patch.dict(os.environ, env or {}):
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def run8(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "run8"
    res = subprocess.run([sys.executable, "-m", "bench", "train", "davi", "puzzle8", "--iterations",
                          "20", "--out", str(out), *TINY], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "iteration 20" in res.stdout
    return out


def test_train_davi_puzzle8_smoke(run8):
    for name in ("checkpoint.pt", "model.pt", "config.json", "log.csv", "depth_log.csv"):
        assert (run8 / name).is_file(), name
    log = pd.read_csv(run8 / "log.csv")
    assert log["iteration"].tolist() == [10, 20]
    assert (log["states_per_s"] > 0).all()
    config = json.loads((run8 / "config.json").read_text())
    assert config["train_config"]["k_max"] == 40 and config["iteration"] == 20


def test_resume_continues_the_run(run8, tmp_path):
    import shutil

    run = tmp_path / "again"
    shutil.copytree(run8, run)
    res = bench("train", "davi", "puzzle8", "--iterations", "5", "--out", str(run), "--resume",
                "--quiet")
    assert res.returncode == 0, res.stderr
    assert load_checkpoint(run / "checkpoint.pt")["iteration"] == 25
    res = bench("train", "davi", "puzzle8", "--iterations", "5", "--out", str(run), "--resume",
                "--k-max", "10")
    assert res.returncode == 2 and "drop --k-max" in res.stderr
    res = bench("train", "davi", "puzzle8", "--iterations", "1", "--out", str(run), "--resume",
                "--lr-decay", "2", "--quiet")
    assert res.returncode == 2 and "--lr-decay: must be in (0, 1]" in res.stderr
    res = bench("train", "davi", "puzzle8", "--iterations", "5", "--out", str(run), "--resume",
                "--epsilon", "0.5", "--quiet")
    assert res.returncode == 0, res.stderr
    ck = load_checkpoint(run / "checkpoint.pt")
    assert ck["iteration"] == 30 and ck["train_config"]["epsilon"] == 0.5
    assert ck["train_config"]["extra"]["epsilon_changes"][-1][0::2] == [25, 0.5]
    res = bench("train", "davi", "puzzle8", "--iterations", "1", "--out", str(run), "--resume",
                "--lr", "1e-4", "--quiet")
    assert res.returncode == 0, res.stderr
    assert load_checkpoint(run / "checkpoint.pt")["train_config"]["extra"]["lr_changes"] == [
        [30, 1e-4, ck["train_config"]["lr_decay"]]]
    res = bench("train", "davi", "puzzle8", "--iterations", "1", "--out", str(run), "--resume",
                "--epsilon", "-1", "--quiet")
    assert res.returncode == 2 and "--epsilon: must be positive" in res.stderr


def test_trained_model_solves_through_bench_solve(run8):
    res = bench("solve", "puzzle8", "--scramble", "U L", "--heuristic", "davi", "--model", str(run8),
                "--solver", "bwas", "--batch", "10", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "solved" and out["heuristic"] == "value-net (davi)"
    res = bench("solve", "puzzle8", "--scramble", "U L", "--heuristic", "davi", "--model", str(run8),
                "--solver", "ida")
    assert res.returncode == 2 and "Traceback" not in res.stderr


@pytest.mark.parametrize("args, words", [
    (["train", "davi", "puzzle8", "--batch", "1", "--iterations", "1"], "--batch"),
    (["train", "davi", "puzzle8", "--k-max", "0", "--iterations", "1"], "--k-max"),
    (["train", "davi", "cube4"], "unknown puzzle"),
    (["train", "diffusion", "puzzle8", "--resume"], "--resume"),
    (["train", "davi", "puzzle8", "--time-limit", "0"], "--time-limit"),
    (["train", "diffusion", "puzzle8", "--arch", "cnn", "--preset", "mlp"],
     "--preset: mlp is a mlp network, not cnn"),
    (["train", "diffusion", "cube2", "--arch", "cnn", "--iterations", "1"],
     "cnn reads a sliding-tile board"),
    (["train", "diffusion", "puzzle8", "--arch", "cnn", "--resume"], "drop --arch"),
    (["solve", "puzzle8", "--scramble", "U", "--heuristic", "davi", "--model", "nope",
      "--solver", "greedy"], "--model"),
])
def test_bad_input_is_one_line_exit_2(args, words, tmp_path):
    res = bench(*args, "--out", str(tmp_path / "x")) if args[0] == "train" else bench(*args)
    assert res.returncode == 2, res.stderr
    assert words in res.stderr and "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0


def test_existing_run_needs_resume(run8):
    res = bench("train", "davi", "puzzle8", "--iterations", "1", "--out", str(run8))
    assert res.returncode == 2 and "--resume" in res.stderr


def test_diffusion_default_folder_and_models_listing(tmp_path):
    env = {"BENCH_CACHE": str(tmp_path)}
    res = bench("train", "diffusion", "puzzle8", "--iterations", "10", "--seed", "3", *TINY, env=env)
    assert res.returncode == 0, res.stderr
    run = tmp_path / "models" / "diffusion-puzzle8-s3"
    assert load_checkpoint(run / "model.pt")["target"] == "diffusion"
    res = bench("models", env=env)
    assert res.returncode == 0 and "diffusion-puzzle8-s3" in res.stdout
    rows = [json.loads(line) for line in bench("models", "--json", env=env).stdout.splitlines()]
    mine = [r for r in rows if r["name"] == "diffusion-puzzle8-s3"]
    assert mine and mine[0]["target"] == "diffusion" and mine[0]["iteration"] == 10
    # a model name resolves through the cache folder
    res = bench("solve", "puzzle8", "--scramble", "U", "--heuristic", "davi", "--model",
                "diffusion-puzzle8-s3", "--solver", "greedy", "--json", env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["status"] == "solved"


def test_import_deepcubea_command(tmp_path):
    from test_davi_deepcubea import _their_state_dict

    torch.save(_their_state_dict(9, 9), tmp_path / "model_state_dict.pt")
    out = tmp_path / "imported.pt"
    res = bench("train", "import-deepcubea", "puzzle8", str(tmp_path / "model_state_dict.pt"),
                "--out", str(out))
    assert res.returncode == 0, res.stderr
    ck = load_checkpoint(out)
    assert ck["input_adapter"] == "deepcubea-tiles" and ck["model_config"]["h1"] == 24


def _shipped():
    from learning.model_store import SHIPPED_DIR

    return sorted(d.name for d in SHIPPED_DIR.iterdir() if (d / "model.pt").is_file())


@pytest.mark.parametrize("name", _shipped())
def test_shipped_model_loads_and_solves_short_scrambles(name):
    import json

    import numpy as np

    from core.errors import InputError
    from core.limits import Limits
    from core.registry import get_puzzle, get_solver
    from heuristics.value_net import ValueNetHeuristic
    from learning.model_store import SHIPPED_DIR

    folder = SHIPPED_DIR / name
    for f in ("model.pt", "config.json", "log.csv", "depth_log.csv", "README.md"):
        assert (folder / f).is_file(), f
    assert (folder / "model.pt").stat().st_size <= 16 * 2**20
    config = json.loads((folder / "config.json").read_text())
    puzzle = config["train_config"]["puzzle"]
    p = get_puzzle(puzzle)
    policy = config["train_config"].get("target") == "policy"
    if policy:
        from heuristics.policy_net import PolicyNet

        # the default policy is the shipped model named PUZZLE-policy
        h = PolicyNet(p) if name == f"{puzzle}-policy" else PolicyNet(p, model=name)
    elif puzzle == name:
        h = ValueNetHeuristic(p)  # the default: the shipped model named like the puzzle
    else:
        h = ValueNetHeuristic(p, model=name)  # another shipped model for the puzzle, by name
    assert h.model_path == folder / "model.pt"
    stored_int8 = load_checkpoint(folder / "model.pt").get("weights_storage") == "int8"
    assert stored_int8 or h.nbytes <= 16 * 2**20  # int8 files run in float32
    scrambled = p.scramble(5, 4, np.random.default_rng(7))
    starts = scrambled[0]
    if policy:
        beam = get_solver("beam", width=8, distinct_moves=bool(p.commuting_moves))
        results = [beam.solve(p, h, s, Limits(time_s=60)) for s in starts]
        assert [r.status for r in results] == ["solved"] * 5
        assert all(r.length <= 4 for r in results)
        return
    try:
        goal = p.goal()
    except InputError:  # a goal set, no single goal state (Sokoban): a scramble's solution's end
        goal = p.apply_path(starts[0], [int(a) for a in scrambled[1][0] if a >= 0])
        assert p.is_goal(goal[None, :])[0]
    assert h(goal[None, :])[0] == 0.0
    bwas = get_solver("bwas", weight=0.6, batch=100)
    results = [bwas.solve(p, h, s, Limits(time_s=60)) for s in starts]
    assert [r.status for r in results] == ["solved"] * 5
    assert all(r.length <= 4 for r in results)
