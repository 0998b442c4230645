"""Small fixed workloads for the regression gate (``nox -s benchgate``, ``nox -s bench``).

Each benchmark skips when the part it measures is not available. Each one names the kind of
work it does; before each of its rounds the reference workload of that kind
(``reference_workloads.py``: plain NumPy, Numba and torch) is timed, and both series go into the
JSON (``extra_info``: ``reference``, ``reference_s``, ``seconds``). ``compare.py`` gates the
benchmark's seconds divided by its reference's.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from core import registry

_REFS: dict[str, Callable[[], Any]] = {}


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} not available")


def reference(kind: str) -> Callable[[], Any]:
    """The reference workload of ``kind``, made (and compiled) once per session."""
    if kind not in _REFS:
        import reference_workloads

        _REFS[kind] = reference_workloads.make(kind)
    return _REFS[kind]


def gated(benchmark: Any, kind: str, fn: Callable[..., Any], args: tuple = (), rounds: int = 9,
          warmup_rounds: int = 1) -> Any:
    """``benchmark.pedantic(fn, args)`` with the reference of ``kind`` timed before each round
    (untimed by the benchmark: pytest-benchmark's ``setup``), recorded in ``extra_info``."""
    ref = reference(kind)
    ref_s: list[float] = []

    def setup() -> None:
        t0 = time.perf_counter()
        ref()
        ref_s.append(time.perf_counter() - t0)

    out = benchmark.pedantic(fn, args=args, setup=setup, rounds=rounds,
                             warmup_rounds=warmup_rounds, iterations=1)
    stats = getattr(getattr(benchmark, "stats", None), "stats", None)
    benchmark.extra_info.update({"reference": kind, "reference_s": ref_s[warmup_rounds:],
                                 "seconds": list(getattr(stats, "data", []))})
    return out


def test_pdb_build_cube_4_edges(benchmark):
    """Breadth-first build of a 190,080-entry cube edge PDB (4 edges, quarter-turn metric)."""
    _need("pdb_builders.korf_cube")
    from pdb_builders import korf_cube

    build = getattr(korf_cube.build, "__wrapped__", korf_cube.build)  # bypass any memo cache
    build("qtm", "edges:0,1,2,3")  # compile
    table, _ = gated(benchmark, "numba_bfs", build, args=("qtm", "edges:0,1,2,3"), rounds=41)
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

    results = gated(benchmark, "numba_search", run, rounds=13)
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
    results = gated(benchmark, "torch_search", run, rounds=15)
    assert all(r.status == "solved" for r in results)


def test_beam_with_network_cube2(benchmark):
    """Beam search (width 64) with the learned heuristic on three 2x2x2 scrambles of 10 moves."""
    _need("heuristics.value_net")
    from core.limits import Limits
    from solvers.base import verified

    p = registry.get_puzzle("cube2")
    try:
        h = registry.get_heuristic("davi", p)
    except Exception as exc:  # noqa: BLE001 - no shipped model for this puzzle
        pytest.skip(f"no learned heuristic for cube2: {exc}")
    beam = registry.get_solver("beam", width=64)
    states, _ = p.scramble(3, 10, np.random.default_rng(1))
    limits = Limits(nodes=5_000_000)

    def run():
        return [verified(p, s, beam.solve(p, h, s, limits)) for s in states]

    run()  # warm up
    results = gated(benchmark, "torch_search", run, rounds=25)
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
    loss = gated(benchmark, "torch_train", trainer.step, args=(batch,), rounds=25)
    assert np.isfinite(loss)


def test_runner_rows_inline(benchmark, tmp_path):
    """Planning and recording 20 runs of the exact Lights Out solver (runner overhead per row)."""
    from bench.executor import InlineExecutor
    from bench.runner import plan_run, run_plan
    from suites.schema import load_suite

    suite = load_suite("lightsout7")
    counter = iter(range(10**6))

    def run():
        plan = plan_run(suite, "quick", ["gf2"], limit=20)
        return run_plan(plan, tmp_path / f"run{next(counter)}", InlineExecutor(), progress=False,
                        prepare=False)

    summary = gated(benchmark, "python", run, rounds=25)
    assert summary.ran == 20 and summary.statuses["solved"] == 20
