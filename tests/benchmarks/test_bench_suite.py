"""Small fixed workloads for the regression comparison (``nox -s bench``).

Each benchmark skips when the part it measures is not available. Figures are compared as
ratios to the calibration workload of the same run (``conftest.py``, ``compare.py``).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from core import registry


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} not available")


def test_calibration_workload(benchmark):
    """The calibration itself, so the table shows it beside the others."""
    from conftest import calibrate

    out = benchmark.pedantic(calibrate, rounds=3, iterations=1)
    assert out["calibration_s"] > 0


def test_pdb_build_cube_4_edges(benchmark):
    """Breadth-first build of a 190,080-entry cube edge PDB (4 edges, quarter-turn metric)."""
    _need("pdb_builders.korf_cube")
    from pdb_builders import korf_cube

    build = getattr(korf_cube.build, "__wrapped__", korf_cube.build)  # bypass any memo cache
    build("qtm", "edges:0,1,2,3")  # compile
    table, _ = benchmark.pedantic(build, args=("qtm", "edges:0,1,2,3"), rounds=3, iterations=1)
    assert table.shape == (190_080,) and table.min() == 0


@pytest.fixture(scope="module")
def korf_easy():
    """Three of Korf's 100 15-puzzles (instances 16, 12, 9: optimal 42, 45, 46 moves)."""
    from suites.schema import load_suite
    from suites.sources import load_instances

    iset = load_instances(load_suite("puzzle15"), "korf100")
    return [i for i in iset.instances if i.id in ("16", "12", "9")]


def test_ida_korf_three_instances(benchmark, korf_easy):
    _need("heuristics.manhattan")
    from solvers.base import verified

    p = registry.get_puzzle("puzzle15", goal="blank-first")
    h = registry.get_heuristic("manhattan", p)
    ida = registry.get_solver("ida")
    ida.solve(p, h, korf_easy[0].state)  # compile

    def run():
        return [verified(p, i.state, ida.solve(p, h, i.state)) for i in korf_easy]

    results = benchmark.pedantic(run, rounds=2, iterations=1)
    assert [r.length for r in results] == [i.optimal for i in korf_easy]


def test_bwas_with_network_cube2(benchmark):
    """BWAS (lambda 0.6, N 1,000) with the learned heuristic on three 2x2x2 scrambles of 8 moves."""
    _need("heuristics.value_net")
    from core.limits import Limits
    from solvers.base import verified

    p = registry.get_puzzle("cube2")
    try:
        h = registry.get_heuristic("davi", p)
    except Exception as exc:  # noqa: BLE001 - no shipped model for this puzzle
        pytest.skip(f"no learned heuristic for cube2: {exc}")
    bwas = registry.get_solver("bwas", weight=0.6, batch=1000)
    states, _ = p.scramble(3, 8, np.random.default_rng(0))
    limits = Limits(nodes=2_000_000)

    def run():
        return [verified(p, s, bwas.solve(p, h, s, limits)) for s in states]

    run()  # warm up (first network calls, allocator)
    results = benchmark.pedantic(run, rounds=5, iterations=1)
    assert all(r.status == "solved" for r in results)


def test_training_step(benchmark, tmp_path):
    """One DAVI training step on the 2x2x2 cube (the small preset, a batch of 1,000 states)."""
    _need("learning.trainer")
    from learning.data import make_batch
    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    trainer = Trainer(TrainConfig(puzzle="cube2", batch=1000, device="cpu"), tmp_path,
                      progress=False)
    batch = make_batch(trainer.puzzle, 0, 0, 1000, int(trainer.cfg.k_max), with_children=True)
    trainer.step(batch)  # warm up
    loss = benchmark.pedantic(trainer.step, args=(batch,), rounds=5, iterations=1)
    assert np.isfinite(loss)


def test_runner_rows_inline(benchmark, tmp_path):
    """Planning and recording 20 runs of the exact Lights Out solver (runner overhead per row)."""
    from bench.executor import InlineExecutor
    from bench.runner import plan_run, run_plan
    from suites.schema import load_suite

    suite = load_suite("lightsout7")
    counter = iter(range(1000))

    def run():
        plan = plan_run(suite, "quick", ["gf2"], limit=20)
        return run_plan(plan, tmp_path / f"run{next(counter)}", InlineExecutor(), progress=False,
                        prepare=False)

    summary = benchmark.pedantic(run, rounds=3, iterations=1)
    assert summary.ran == 20 and summary.statuses["solved"] == 20
