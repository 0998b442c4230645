"""IDA*'s subtree order on DeepCubeA's cubes: ``actions`` against ``previous`` at two frontier
sizes (``solvers._ida_cube_parallel.NODES_PER_THREAD``), each cube solved by every
configuration in turn (interleaved), one JSON line per search, every path replayed and its
length checked against the pickle's optimum.

    python -m experiments.cube3_optimal.order_ab --cubes 0,1,3,4 --heuristic pdb-coset-eo2ep2 \\
        --threads 2 --out results/cube3-optimal/order-ab.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.provenance import cpu_name
from core.errors import InputError
from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from solvers import _ida_cube_parallel
from solvers.ida import IDAStar
from suites.schema import load_suite
from suites.sources import load_instances


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubes", required=True, help="DeepCubeA cube numbers, comma-separated")
    ap.add_argument("--heuristic", default="pdb-coset-eo2ep2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--configs", default="actions:64,previous:64,previous:512",
                    help="order:frontier nodes per thread, comma-separated")
    ap.add_argument("--time-limit", type=float, default=1800.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        cubes = [int(x) for x in args.cubes.split(",")]
        configs = [(o, int(n)) for o, n in (c.split(":") for c in args.configs.split(","))]
        solvers = {c: IDAStar(threads=args.threads, order=c[0]) for c in configs}
        out = Path(args.out)
        if out.exists():
            raise InputError(f"--out: {out.name} exists (never overwritten)")
    except (ValueError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    puzzle = get_puzzle("cube3")
    insts = load_instances(load_suite("cube3"), "deepcubea").instances
    h = get_heuristic(args.heuristic, puzzle, progress=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("x") as f:
        for k in cubes:
            inst = insts[k]
            for (order, per_thread), solver in solvers.items():
                _ida_cube_parallel.NODES_PER_THREAD = per_thread
                t0 = time.perf_counter()
                r = solver.solve(puzzle, h, inst.state, Limits(time_s=args.time_limit))
                if r.actions is not None and (not puzzle.check_solution(inst.state, r.actions)
                                              or r.length != inst.optimal):
                    raise RuntimeError(f"cube {k}: length {r.length}, optimum {inst.optimal}")
                row: dict[str, Any] = {
                    "cube": inst.id, "optimal": inst.optimal, "heuristic": args.heuristic,
                    "threads": args.threads, "order": order, "nodes_per_thread": per_thread,
                    "status": str(r.status.value), "length": r.length,
                    "seconds": round(r.time_s, 2), "wall_seconds": round(time.perf_counter() - t0, 2),
                    "nodes_generated": r.nodes_generated,
                    "iteration_nodes": r.extra.get("iteration_nodes"), "cpu": cpu_name()}
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(json.dumps({k2: row[k2] for k2 in ("cube", "optimal", "order",
                                                         "nodes_per_thread", "status",
                                                         "seconds", "nodes_generated")}),
                      flush=True)


if __name__ == "__main__":
    main()
