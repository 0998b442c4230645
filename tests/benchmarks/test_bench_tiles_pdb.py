"""Tile PDB and tiles IDA* benchmarks (``nox -s bench``; add ``-s`` to see the printed figures).

* ``test_ida_manhattan_vs_c_reference``: nodes per CPU second of our Manhattan IDA* and of
  ``../shared/tools/ref_ida15.c`` (gcc -O3 -march=native) on the same Korf instances in the same
  run; node counts must agree exactly; prints the ratio (goal: at least 0.5).
* ``test_build_pdb``: build seconds, peak resident memory (a fresh process each) and file size of
  pdb-555 and pdb-663 (pdb-78 too when ``BENCH_PDB78=1``: about 30+ minutes and several GiB).
* ``test_mean_heuristic_korf100``: mean value of each tile heuristic over Korf's 100.
* ``test_eval_rate``: evaluations per second, one state at a time and in a batch of 10,000.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.paths import shared_dir
from core.registry import get_heuristic, get_puzzle

ROOT = Path(__file__).resolve().parents[2]
KORF = shared_dir() / "instances" / "korf100_15puzzle.txt"
REF_C = shared_dir() / "tools" / "ref_ida15.c"
#: Korf instances used for the node-rate comparison (1-based ids; ~1.4 billion nodes in all)
RATE_IDS = tuple(range(1, 11))


def korf100() -> tuple[np.ndarray, np.ndarray]:
    if not KORF.is_file():
        pytest.skip("Korf's 100 instances not found (../shared)")
    rows = [line.split() for line in KORF.read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    states = np.array([[int(x) for x in r[2:]] for r in rows], dtype=np.uint8)
    return states, np.array([int(r[1]) for r in rows])


def test_ida_manhattan_vs_c_reference(benchmark, tmp_path: Path) -> None:
    from solvers import _ida_tiles

    if shutil.which("gcc") is None or not REF_C.is_file():
        pytest.skip("gcc or ref_ida15.c not available")
    states, lengths = korf100()
    exe = tmp_path / "ref_ida15"
    subprocess.run(["gcc", "-O3", "-march=native", "-o", str(exe), str(REF_C)], check=True)
    picked = states[[i - 1 for i in RATE_IDS]]
    text = "\n".join(" ".join(map(str, s)) for s in picked) + "\n"
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout
    c_nodes, c_time = [], 0.0
    for line in out.splitlines():
        if "len=" in line:
            f = dict(kv.split("=") for kv in line.split()[1:])
            c_nodes.append(int(f["nodes"]))
            c_time += float(f["time"])
    p = get_puzzle("puzzle15", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    _ida_tiles.warmup(p, spec)

    def run() -> tuple[list[int], float]:
        nodes, cpu = [], 0.0
        for s, opt in zip(picked, lengths[[i - 1 for i in RATE_IDS]], strict=True):
            t0 = time.process_time()
            r = _ida_tiles.search(p, spec, s, None, None)
            cpu += time.process_time() - t0
            assert len(r["actions"]) == opt
            nodes.append(r["nodes_generated"])
        return nodes, cpu

    nodes, cpu = benchmark.pedantic(run, rounds=1, iterations=1)
    assert nodes == c_nodes
    ours, ref = sum(nodes) / cpu, sum(c_nodes) / c_time
    benchmark.extra_info.update(ours_mnodes_s=ours / 1e6, c_mnodes_s=ref / 1e6, ratio=ours / ref)
    print(f"\nIDA* Manhattan, Korf {RATE_IDS[0]}-{RATE_IDS[-1]}: {sum(nodes):,} nodes; "
          f"ours {ours / 1e6:.1f} M/s, C {ref / 1e6:.1f} M/s (CPU time), ratio {ours / ref:.2f}")


_BUILD = """
import json, resource, sys, time
from core.registry import get_puzzle
from pdb_builders import catalog
puzzle, heuristic = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
specs = catalog.find(puzzle, heuristic).tables(puzzle)
for s in specs:
    s.build(progress=False)
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "bytes": sum(s.path.stat().st_size for s in specs)}))
"""

BUILDS = ["pdb-555", "pdb-663"] + (["pdb-78"] if os.environ.get("BENCH_PDB78") == "1" else [])


@pytest.mark.parametrize("heuristic", BUILDS)
def test_build_pdb(benchmark, heuristic: str, tmp_path: Path) -> None:
    env = {**os.environ, "BENCH_CACHE": str(tmp_path)}

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", _BUILD, "puzzle15", heuristic], cwd=ROOT,
                             env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    fig = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(fig)
    print(f"\n{heuristic}: built in {fig['seconds']:.1f} s (incl. compile), peak RSS "
          f"{fig['peak_rss_mib']:.0f} MiB, files {fig['bytes'] / 2**20:.1f} MiB")


MEAN_HEURISTICS = ["manhattan", "linear-conflict", "pdb-555", "pdb-555-reflect", "pdb-663",
                   "pdb-663-reflect"] + (["pdb-78", "pdb-78-reflect"]
                                         if os.environ.get("BENCH_PDB78") == "1" else [])


@pytest.mark.parametrize("heuristic", MEAN_HEURISTICS)
def test_mean_heuristic_korf100(benchmark, heuristic: str) -> None:
    states, lengths = korf100()
    h = get_heuristic(heuristic, get_puzzle("puzzle15", goal="blank-first"))
    values = benchmark(h, states)
    assert np.all(values <= lengths)
    benchmark.extra_info["mean_h"] = float(values.mean())
    print(f"\n{heuristic}: mean h over Korf's 100 = {values.mean():.2f} "
          f"(mean optimal {lengths.mean():.2f})")


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict", "pdb-663", "pdb-663-reflect"])
@pytest.mark.parametrize("batch", [1, 10_000])
def test_eval_rate(benchmark, heuristic: str, batch: int) -> None:
    p = get_puzzle("puzzle15")
    h = get_heuristic(heuristic, p)
    states = p.random_states(batch, np.random.default_rng(0))
    h(states)
    values = benchmark(h, states)
    assert values.shape == (batch,)
    rate = batch / benchmark.stats.stats.median
    benchmark.extra_info["evals_per_s"] = rate
    print(f"\n{heuristic}, batch {batch}: {rate:,.0f} evaluations/s")
