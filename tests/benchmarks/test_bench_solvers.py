"""Solver benchmarks (``nox -s bench``, or ``pytest tests/benchmarks --benchmark-enable --benchmark-only``).

- BWAS node rate (nodes generated per second of search) with Manhattan distance on random
  15-puzzles at N = 10,000 (weight 0.6, the ``bwas`` preset);
- the closed-set choice: the Numba open-addressing table against a Python ``dict`` keyed by the
  state's bytes, on the same searches (identical node counts; only time differs);
- IDA* with ``lights-on`` on DeepCubeA's 500 Lights Out 7x7 test states;
- BWAS with Korf's cube PDBs on 20 random cubes at N = 10,000 and lambda 0.0, 0.1, 0.2 (as in
  DeepCubeA's Figure 2): node rate, solved count and solution lengths (``BENCH_CUBES`` and
  ``BENCH_CUBE_TIME`` set the number of cubes and the time limit per cube, default 20 and 10 s;
  ``BENCH_CUBE_DEPTH`` uses random walks of that many moves instead of uniform random cubes).

Figures go to ``benchmark.extra_info`` (saved with ``--benchmark-json``) and are printed.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from solvers.best_first import BatchBestFirst


def _run_all(solver, puzzle, heuristic, states, limits=None):
    results = [solver.solve(puzzle, heuristic, s, limits) for s in states]
    nodes = sum(r.nodes_generated for r in results)
    seconds = sum(r.time_s for r in results)
    return results, nodes, seconds


def _report(benchmark, label, results, nodes, seconds):
    solved = [r for r in results if r.status == "solved"]
    info = dict(
        instances=len(results), solved=len(solved), nodes_generated=nodes, search_s=seconds,
        nodes_per_s=nodes / seconds if seconds else float("nan"),
        mean_length=float(np.mean([r.length for r in solved])) if solved else None,
        lengths=[r.length for r in results],
        peak_rss_mib=max(r.peak_rss_bytes for r in results) / 2**20,
    )
    benchmark.extra_info.update(info)
    print(f"\n{label}: {info['solved']}/{info['instances']} solved, {nodes:,} nodes in "
          f"{seconds:.2f} s = {info['nodes_per_s']:,.0f} nodes/s, mean length "
          f"{info['mean_length']}, peak RSS {info['peak_rss_mib']:.0f} MiB")
    return info


@pytest.fixture(scope="module")
def puzzle15():
    p = get_puzzle("puzzle15")
    h = get_heuristic("manhattan", p)
    states = p.random_states(5, np.random.default_rng(15))
    return p, h, states


@pytest.mark.parametrize("closed", ["numba", "dict"])
def test_bwas_puzzle15_manhattan_node_rate(benchmark, puzzle15, closed):
    p, h, states = puzzle15
    solver = BatchBestFirst(weight=0.6, batch=10_000, closed=closed)
    solver.solve(p, h, p.from_moves(p.parse_moves("U L")))  # compile outside the timing
    results, nodes, seconds = benchmark.pedantic(
        _run_all, args=(solver, p, h, states), rounds=1, iterations=1)
    info = _report(benchmark, f"bwas N=10000 w=0.6 manhattan puzzle15 closed={closed}",
                   results, nodes, seconds)
    assert info["solved"] == len(states)


@pytest.mark.parametrize("weight", [0.0, 0.1, 0.2])
def test_bwas_cube3_pdb_korf(benchmark, weight):
    p = get_puzzle("cube3")
    h = get_heuristic("pdb-korf", p)
    count = int(os.environ.get("BENCH_CUBES", "20"))
    per_cube_s = float(os.environ.get("BENCH_CUBE_TIME", "10"))
    depth = os.environ.get("BENCH_CUBE_DEPTH")  # scramble depth; default uniform random cubes
    rng = np.random.default_rng(3)
    states = p.random_states(count, rng) if depth is None else p.scramble(count, int(depth), rng)[0]
    solver = BatchBestFirst(weight=weight, batch=10_000)
    limits = Limits(time_s=per_cube_s, memory_bytes=4 << 30)
    solver.solve(p, h, p.from_moves([0]))
    results, nodes, seconds = benchmark.pedantic(
        _run_all, args=(solver, p, h, states, limits), rounds=1, iterations=1)
    _report(benchmark, f"bwas N=10000 lambda={weight} pdb-korf cube3 depth={depth or 'random'}",
            results, nodes, seconds)
    assert all(r.status in ("solved", "timeout", "out-of-memory") for r in results)


@pytest.mark.shared
def test_ida_lights_on_deepcubea_lightsout7(benchmark, deepcubea):
    """IDA* with ``lights-on`` on DeepCubeA's 500 Lights Out 7x7 test states (all optimal)."""
    from puzzles.lightsout import from_deepcubea_lights
    from solvers.ida import IDAStar
    from suites.importers.deepcubea import load_test_set

    states = from_deepcubea_lights(load_test_set(deepcubea / "lightsout7" / "test_data_0.pkl").states)
    p = get_puzzle("lightsout7")
    h = get_heuristic("lights-on", p)
    solver = IDAStar()
    solver.solve(p, h, states[0])  # compile outside the timing
    results, nodes, seconds = benchmark.pedantic(
        _run_all, args=(solver, p, h, states), rounds=1, iterations=1)
    _report(benchmark, "ida lights-on lightsout7 (DeepCubeA test set)", results, nodes, seconds)
    assert [r.length for r in results] == list(p.optimal_lengths(states))
