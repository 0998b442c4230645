"""Learned-heuristic benchmarks (``nox -s bench`` or ``pytest tests/benchmarks --benchmark-enable``).

- DAVI training throughput: states per second of one training iteration (Bellman targets over
  all children with the target network, then one Adam step) at batch 1,000, per puzzle, with the
  shipped models' network size (h1 256, residual width 128, 2 blocks) and DeepCubeA's ``small``
  preset on cube3;
- heuristic evaluation speed: one state, and batches of 10,000 states (cube3, puzzle15), and the
  parameter memory (``nbytes``), for the same sizes and DeepCubeA's published size (14.7 M
  parameters on the cube);
- BWAS with the shipped models on fixed subsets of DeepCubeA's test sets, when ../shared holds
  them and the model is shipped (``BENCH_DAVI_COUNT`` states, default 50;
  ``BENCH_DAVI_TIME`` seconds per state, default 60).

Figures go to ``benchmark.extra_info`` and are printed. Torch runs on one thread.
"""

from __future__ import annotations

import copy
import os

import numpy as np
import pytest
import torch

from core.registry import get_puzzle
from heuristics.value_net import ValueNetHeuristic
from learning.checkpoint import save_checkpoint
from learning.devices import num_parameters, parameter_bytes
from learning.model_config import ModelConfig
from learning.model_store import SHIPPED_DIR
from learning.networks import build_network
from learning.train_config import TrainConfig
from learning.trainer import Trainer

SIZES = {"shipped": (256, 128, 2), "small": (512, 256, 2), "deepcubea": (5000, 1000, 4)}


@pytest.fixture(autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("puzzle_name, size", [("cube2", "shipped"), ("puzzle8", "shipped"),
                                               ("puzzle15", "shipped"), ("cube3", "shipped"),
                                               ("cube3", "small"), ("lightsout7", "shipped")])
def test_davi_training_throughput(benchmark, tmp_path, puzzle_name, size):
    h1, res, blocks = SIZES[size]
    cfg = TrainConfig(puzzle=puzzle_name, h1=h1, res_dim=res, num_blocks=blocks, batch=1000,
                      device="cpu")
    t = Trainer(cfg, tmp_path, progress=False)
    t.target = copy.deepcopy(t.model).eval()  # targets from a network, as after the first update
    from learning.data import make_batch

    batch = make_batch(t.puzzle, 0, 0, cfg.batch, t.cfg.k_max, with_children=True)
    benchmark.pedantic(t.step, args=(batch,), rounds=3, iterations=1, warmup_rounds=1)
    states_per_s = cfg.batch / benchmark.stats.stats.mean
    benchmark.extra_info.update(states_per_s=states_per_s, parameters=num_parameters(t.model),
                                actions=t.puzzle.num_actions)
    print(f"\n{puzzle_name} {size}: {states_per_s:,.0f} training states/s "
          f"({num_parameters(t.model):,} parameters, {t.puzzle.num_actions} children each)")


def _heuristic(tmp_path, puzzle, size) -> ValueNetHeuristic:
    h1, res, blocks = SIZES[size]
    cfg = ModelConfig(puzzle.state_dim, puzzle.num_symbols, h1, res, blocks)
    net = build_network(cfg)
    path = save_checkpoint(tmp_path / "m.pt", {
        "kind": "model", "target": "davi", "puzzle": puzzle.name, "encoding": puzzle.encoding_name,
        "state_dim": puzzle.state_dim, "num_symbols": puzzle.num_symbols,
        "goal": [int(v) for v in puzzle.goal()], "input_adapter": "none",
        "model_config": cfg.to_dict(), "model": net.state_dict(), "metrics": {},
    })
    return ValueNetHeuristic(puzzle, model=path)


@pytest.mark.parametrize("n", [1, 10_000])
@pytest.mark.parametrize("puzzle_name, size", [("cube3", "shipped"), ("cube3", "small"),
                                               ("cube3", "deepcubea"), ("puzzle15", "shipped")])
def test_heuristic_evaluation_speed(benchmark, tmp_path, puzzle_name, size, n):
    p = get_puzzle(puzzle_name)
    h = _heuristic(tmp_path, p, size)
    states = p.scramble(n, 20, np.random.default_rng(0))[0]
    rounds = 20 if n == 1 else (1 if size == "deepcubea" else 3)
    values = benchmark.pedantic(h, args=(states,), rounds=rounds, iterations=1, warmup_rounds=1)
    assert values.shape == (n,)
    rate = n / benchmark.stats.stats.mean
    benchmark.extra_info.update(states_per_s=rate, nbytes=h.nbytes,
                                parameters=h.num_parameters, batch=n)
    print(f"\n{puzzle_name} {size} batch {n}: {rate:,.0f} states/s, "
          f"{h.num_parameters:,} parameters, {h.nbytes / 2**20:.1f} MiB")
    assert h.nbytes == parameter_bytes(h.net)


# (puzzle, solver arguments): DeepCubeA's settings where the task names them
BWAS = {
    "puzzle15": {"weight": 0.8, "batch": 20_000},
    "cube3": {"weight": 0.6, "batch": 10_000},
    "lightsout7": {"weight": 0.6, "batch": 1_000},
}


@pytest.mark.shared
@pytest.mark.parametrize("puzzle_name", list(BWAS))
def test_bwas_on_deepcubea_test_sets(benchmark, deepcubea, puzzle_name, tmp_path):
    from bench.evaluate import SUITE_FILE, evaluation_suite, run_evaluation, summarize
    from suites.schema import suite_toml

    if not (SHIPPED_DIR / puzzle_name / "model.pt").is_file():
        pytest.skip(f"no shipped model for {puzzle_name}")
    count = int(os.environ.get("BENCH_DAVI_COUNT", "50"))
    seconds = float(os.environ.get("BENCH_DAVI_TIME", "60"))
    path = tmp_path / SUITE_FILE
    path.write_text(suite_toml(evaluation_suite(path, puzzle_name, None, "deepcubea", count, 0,
                                                "bwas", BWAS[puzzle_name], "float32", seconds,
                                                None, None)))
    df = benchmark.pedantic(run_evaluation, args=(path, tmp_path), kwargs={"progress": False},
                            rounds=1, iterations=1)
    summary = summarize(df)
    benchmark.extra_info.update(summary)
    print(f"\n{puzzle_name} BWAS {BWAS[puzzle_name]}: {summary}")
    assert summary["states"] == count
