"""Benchmarks of the cube pattern databases and the cube IDA* kernel (``nox -s bench``).

* building Korf's three tables per metric (seconds, peak RSS, file sizes; in a subprocess);
* heuristic evaluations per second, one state and a batch of 10,000;
* the full Korf tables against every state within 6 half turns / 7 quarter turns of solved;
* IDA* with ``pdb-korf`` on random scrambles of growing depth (mean seconds per depth).

The tables are built once into ``$BENCH_CACHE`` (about 40 s per metric on 2 cores) and reused.
Figures land in each benchmark's ``extra_info`` (``--benchmark-json`` keeps them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

cube = pytest.importorskip("puzzles.cube")

from heuristics.pdb_cube import KorfCubePDB  # noqa: E402
from solvers import _ida_cube as ida  # noqa: E402

PUZZLES = ["cube3", "cube3-htm"]

_BUILD = """
import json, resource, sys, time
from pdb_builders import korf_cube as kc
out = {}
for p in kc.KORF_PATTERNS:
    spec = kc.table_spec(sys.argv[1], p)
    t = time.perf_counter()
    spec.build(progress=False, jobs=int(sys.argv[2]))
    out[p] = {"seconds": time.perf_counter() - t, "bytes": spec.path.stat().st_size}
out["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(out))
"""


@pytest.fixture(scope="module", params=PUZZLES)
def korf(request):
    puzzle = cube.Cube3("htm" if request.param.endswith("htm") else "qtm")
    return puzzle, KorfCubePDB(puzzle)


@pytest.mark.parametrize("name", PUZZLES)
@pytest.mark.parametrize("jobs", [0, 1])
def test_build_korf_tables(benchmark, name, jobs, tmp_path):
    """Build the three tables from scratch in a fresh process (``jobs=0``: all Numba threads)."""
    env = {**os.environ, "BENCH_CACHE": str(tmp_path)}

    def build() -> dict:
        res = subprocess.run([sys.executable, "-c", _BUILD, name, str(jobs)], env=env,
                             capture_output=True, text=True, check=True)
        return json.loads(res.stdout.strip().splitlines()[-1])

    out = benchmark.pedantic(build, rounds=1, iterations=1)
    benchmark.extra_info.update(out)
    assert sum(v["seconds"] for k, v in out.items() if k != "peak_rss_bytes") < 180


def test_eval_single_state(benchmark, korf):
    puzzle, h = korf
    state = puzzle.scramble(1, 20, np.random.default_rng(0))[0]
    values = benchmark(h, state)
    benchmark.extra_info["evals_per_s"] = 1.0 / benchmark.stats.stats.mean
    assert 0 < values[0] <= 20


def test_eval_batch_10000(benchmark, korf):
    puzzle, h = korf
    states = puzzle.random_states(10_000, np.random.default_rng(1))
    values = benchmark(h, states)
    benchmark.extra_info["evals_per_s"] = 10_000 / benchmark.stats.stats.mean
    assert values.shape == (10_000,) and values.min() >= 5


def test_lower_bounds_on_the_ball(benchmark, korf):
    """Every state within 6 half turns / 7 quarter turns: ``h <= distance``."""
    puzzle, h = korf
    depth = 6 if puzzle.metric == "htm" else 7
    out = benchmark.pedantic(ida.ball_check, args=(puzzle, h.ida_spec(), depth), rounds=1,
                             iterations=1)
    benchmark.extra_info.update(out)
    assert out["violations"] == 0


DEPTHS = {"htm": [12, 14, 15, 16, 17], "qtm": [14, 16, 17, 18, 19]}


@pytest.mark.parametrize("per_depth", [3])
def test_ida_korf_by_scramble_depth(benchmark, korf, per_depth):
    """Mean IDA* seconds per scramble depth (60 s limit per cube); stops after a depth that
    averages over 60 s."""
    puzzle, h = korf
    spec = h.ida_spec()
    ida.warmup(puzzle, spec)
    rng = np.random.default_rng(2)

    def run() -> dict:
        rows = {}
        for depth in DEPTHS[puzzle.metric]:
            states, _ = puzzle.scramble(per_depth, depth, rng)
            times, lengths, nodes, solved = [], [], [], 0
            for s in states:
                t0 = time.monotonic()
                out = ida.search(puzzle, spec, s, None, t0 + 60.0)
                times.append(time.monotonic() - t0)
                nodes.append(out["nodes_generated"])
                if out["status"] == "solved":
                    assert puzzle.check_solution(s, out["actions"])
                    solved += 1
                    lengths.append(len(out["actions"]))
            rows[depth] = {"mean_s": float(np.mean(times)), "solved": solved,
                           "lengths": lengths, "nodes_per_s": float(sum(nodes) / sum(times))}
            if np.mean(times) > 60.0 or solved < per_depth:
                break
        return rows

    rows = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["by_depth"] = rows
    assert rows[DEPTHS[puzzle.metric][0]]["solved"] == per_depth
