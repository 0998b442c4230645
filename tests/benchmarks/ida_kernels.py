"""Node counts and node rates of every IDA* kernel on fixed workloads, one JSON line per kernel.

Usage: ``python PATH/ida_kernels.py [KERNEL ...] [--repeat R]`` run in the checkout to measure
(its code is imported from the working directory); kernels: tiles-manhattan, tiles-linear-conflict, tiles-pdb-555,
tiles-pdb-555-reflect, tiles-pdb-44, cube-korf, cube2, lights-on. Each line holds the kernel,
the instances solved, the total nodes generated (all iterations), the solution lengths and the
search's CPU seconds (best of R repeats; compilation and table loading excluded: every kernel
solves its instances once before the timed repeats).

Run it in two checkouts to compare them side by side: identical ``nodes`` and ``lengths`` say
the kernels search the same trees; ``mnodes_per_cpu_s`` compares their speed. The cube kernel
uses Korf's full tables when they are in the cache (``bench pdb build pdb-korf``), else it is
skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.getcwd())  # the checkout under test, not this file's

try:
    from core.registry import get_heuristic, get_puzzle, get_solver
except ImportError:  # a checkout from before the core package
    from bench.registry import get_heuristic, get_puzzle, get_solver  # type: ignore[no-redef]

try:
    from core.paths import cache_dir, shared_dir
except ImportError:
    from bench.paths import cache_dir, shared_dir  # type: ignore[no-redef]


def korf(ids: list[int]) -> np.ndarray:
    path = shared_dir() / "instances" / "korf100_15puzzle.txt"
    rows = [ln.split() for ln in path.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]
    return np.array([[int(x) for x in rows[i - 1][2:]] for i in ids], dtype=np.uint8)


def scrambles(puzzle, count: int, depth: int, seed: int) -> np.ndarray:
    return puzzle.scramble(count, depth, np.random.default_rng(seed))[0]


def workload(name: str):
    """``(puzzle, heuristic, states)`` of one kernel's fixed workload."""
    if name.startswith("tiles-"):
        h = name[6:]
        if h == "pdb-44":
            p = get_puzzle("puzzle8", goal="blank-first")
            return p, get_heuristic(h, p, progress=False), scrambles(p, 200, 40, 1)
        p = get_puzzle("puzzle15", goal="blank-first")
        ids = {"manhattan": [1, 3, 4], "linear-conflict": [3, 5],
               "pdb-555": list(range(1, 6)), "pdb-555-reflect": list(range(1, 6))}[h]
        kw = {"progress": False} if h.startswith("pdb") else {}
        return p, get_heuristic(h, p, **kw), korf(ids)
    if name == "cube-korf":
        if not (cache_dir() / "cube3-corners.h5").is_file():
            return None
        p = get_puzzle("cube3-htm")
        return p, get_heuristic("pdb-korf", p, progress=False), scrambles(p, 10, 14, 2)
    if name == "cube2":
        p = get_puzzle("cube2")
        return p, get_heuristic("pdb-cube2", p, progress=False), scrambles(p, 200, 20, 3)
    if name == "lights-on":
        p = get_puzzle("lightsout7")
        return p, get_heuristic("lights-on", p), p.random_states(300, np.random.default_rng(4))
    raise SystemExit(f"unknown kernel {name!r}")


KERNELS = ["tiles-manhattan", "tiles-linear-conflict", "tiles-pdb-555", "tiles-pdb-555-reflect",
           "tiles-pdb-44", "cube-korf", "cube2", "lights-on"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=KERNELS)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ida = get_solver("ida")
    for name in args.kernels:
        w = workload(name)
        if w is None:
            print(json.dumps({"kernel": name, "skipped": "tables not built"}), flush=True)
            continue
        p, h, states = w
        ref = [ida.solve(p, h, s) for s in states]  # compiles, loads tables
        best = None
        for _ in range(args.repeat):
            cpu = 0.0
            for s in states:
                t0 = time.process_time()
                ida.solve(p, h, s)
                cpu += time.process_time() - t0
            best = cpu if best is None else min(best, cpu)
        nodes = sum(int(r.nodes_generated) for r in ref)
        print(json.dumps({
            "kernel": name, "instances": len(states), "nodes": nodes,
            "lengths": [r.length for r in ref], "cpu_s": round(best, 4),
            "mnodes_per_cpu_s": round(nodes / best / 1e6, 3),
            "threads": os.environ.get("NUMBA_NUM_THREADS", ""),
        }), flush=True)


if __name__ == "__main__":
    main()
