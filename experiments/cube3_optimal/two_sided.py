"""``pdb-coset-eo`` IDA* with ``sides=both`` (nxopt's two-sided search) against ``sides=forward``
on DeepCubeA's cube3 cubes, one thread, one search at a time.

Takes the cubes among DeepCubeA's first 200 whose optimal length (the pickle's) lies in
``[--min-optimal, --max-optimal]``, shortest first (ties in the set's order, at most ``--limit``),
solves each under both searches and writes one JSON line per cube: nodes generated and expanded,
nodes per iteration, wall seconds and nanoseconds per generated node of each search. Every
length is checked against the optimum and every path replayed.

    python -m experiments.cube3_optimal.two_sided --min-optimal 17 --max-optimal 20 --limit 9 \\
        --out results/cube3-optimal/two-sided.jsonl

``--parts set,slice`` (corner part, edge part) runs a small stand-in table instead of the
2.52 GB one (``bench pdb build cube3 pdb-coset-eo``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from core.registry import get_puzzle
from heuristics.pdb_coset_eo import CosetEOCubePDB
from solvers.ida import kernel_module
from suites.schema import load_suite
from suites.sources import load_instances


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="full,eo", help="corner part, edge part of the table")
    ap.add_argument("--min-optimal", type=int, default=0)
    ap.add_argument("--max-optimal", type=int, required=True)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--max-nodes", type=float, default=3e8, help="node limit per search")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    corner, edge = args.parts.split(",")
    puzzle = get_puzzle("cube3")
    iset = load_instances(load_suite("cube3"), "deepcubea")
    cubes = sorted(((i.optimal, k, i) for k, i in enumerate(iset.instances[:200])
                    if i.optimal is not None and args.min_optimal <= i.optimal <= args.max_optimal),
                   key=lambda c: (c[0], c[1]))[:args.limit]
    specs = {s: CosetEOCubePDB(puzzle, corner, edge, sides=s).ida_spec()
             for s in ("both", "forward")}
    for spec in specs.values():
        kernel_module(spec.family).warmup(puzzle, spec)
    with Path(args.out).open("a") as out:
        for opt, _, inst in cubes:
            row: dict[str, object] = {"cube": inst.id, "optimal": opt, "table": args.parts}
            for side, spec in specs.items():
                t0 = time.perf_counter()
                res = kernel_module(spec.family).search(puzzle, spec, inst.state,
                                                         int(args.max_nodes), None)
                dt = time.perf_counter() - t0
                if res["actions"] is not None:
                    if len(res["actions"]) != opt or not puzzle.check_solution(inst.state,
                                                                               res["actions"]):
                        raise SystemExit(f"cube {inst.id}: {side} returned a wrong path")
                row[side] = {"status": res["status"], "nodes": res["nodes_generated"],
                             "expanded": res["nodes_expanded"], "iters": res["iteration_nodes"],
                             "s": round(dt, 2),
                             "ns_node": round(dt * 1e9 / max(1, res["nodes_generated"]), 1)}
            out.write(json.dumps(row) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
