"""Optimal IDA* on DeepCubeA's cubes (quarter turns) with the default search heuristic.

Runs what ``bench solve cube3 STATE --solver ida`` runs without ``--heuristic`` (the registry's
default heuristic and its options) on the cubes among DeepCubeA's first ``--first`` whose
optimal length (the pickle's, replayed) is at most ``--max-optimal`` (and at least
``--min-optimal``), shortest first (at most
``--limit``; ties in the set's order), one search at a time, and writes one JSON line per cube
(lengths checked against the optimum, nodes per iteration, wall and CPU seconds).

    python -m experiments.cube3_optimal.deepcubea_solve --max-optimal 19 --limit 7 --threads 2 \\
        --time-limit 3600 --out results/cube3-optimal/deepcubea-short.jsonl

``--heuristic pdb-coset-eo`` runs the two-bit coset table instead (its tables built first:
``bench pdb build cube3 pdb-coset-eo``). ``--order previous`` is the solver's ``order`` option
(a large iteration's subtrees searched most nodes in the previous iteration first, with one
thread too); the rows say which order ran.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.limits import Limits
from core.registry import default_heuristic, default_heuristic_args, get_heuristic, get_puzzle
from solvers.ida import IDAStar
from suites.schema import load_suite
from suites.sources import load_instances


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=200, help="DeepCubeA's first N cubes")
    ap.add_argument("--max-optimal", type=int, required=True,
                    help="only cubes whose optimal length is at most this")
    ap.add_argument("--min-optimal", type=int, default=0,
                    help="only cubes whose optimal length is at least this")
    ap.add_argument("--limit", type=int, default=None, help="at most this many cubes")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--order", default="actions",
                    help="the IDA* solver's subtree order: actions or previous")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per cube")
    ap.add_argument("--heuristic", default=None,
                    help="a heuristic by name, with its own defaults (default: the registry's "
                         "default search heuristic and its options)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:  # the solver's options checked before any table is loaded
        solver = IDAStar(threads=args.threads, order=args.order)
    except InputError as exc:
        ap.error(str(exc))
    puzzle = get_puzzle("cube3")
    iset = load_instances(load_suite("cube3"), "deepcubea")
    cubes = [(i.optimal, k, i) for k, i in enumerate(iset.instances[: args.first])
             if i.optimal is not None and args.min_optimal <= i.optimal <= args.max_optimal]
    cubes.sort(key=lambda c: (c[0], c[1]))
    cubes = cubes[: args.limit]
    name = args.heuristic or default_heuristic(puzzle.name)
    assert name is not None
    hargs = {} if args.heuristic else default_heuristic_args(puzzle.name)
    t0 = time.perf_counter()
    h = get_heuristic(name, puzzle, progress=False, **hargs)
    print(f"{name} {hargs}: loaded in {time.perf_counter() - t0:.1f} s, "
          f"{h.nbytes / 2**20:.1f} MiB; {len(cubes)} cubes", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("x") as f:  # never overwrites a finished file
        for optimal, _, inst in cubes:
            c0 = time.process_time()
            r = solver.solve(puzzle, h, inst.state, Limits(time_s=args.time_limit))
            row: dict[str, Any] = {
                "cube": inst.id, "optimal": optimal, "heuristic": name, "heuristic_args": hargs,
                "threads": args.threads, "order": args.order,
                "status": str(r.status.value), "length": r.length,
                "optimal_found": r.length == optimal if r.length is not None else None,
                "seconds": round(r.time_s, 2), "cpu_seconds": round(time.process_time() - c0, 2),
                "nodes_generated": r.nodes_generated, "h_start": r.h_start,
                "iteration_nodes": r.extra.get("iteration_nodes"),
                "time_limit_s": args.time_limit}
            if r.length is not None and r.length != optimal:
                raise RuntimeError(f"cube {inst.id}: length {r.length}, optimum {optimal}")
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
