"""Optimal IDA* on DeepCubeA's first cubes in the set's order (quarter turns), one search at a
time, resumable: the issue's 200-cube measure.

Each cube's row (one JSON line) holds the status, the length against the pickle's optimum,
wall and CPU seconds, nodes generated and per iteration, and the search's settings; the path is
replayed on the cube before the row is written, and a length other than the optimum stops the
run. A run appends to ``--out`` and skips the cubes already there (rows of other settings are
refused), so a run stopped at any point goes on where it stopped; ``--summary`` prints the
median and mean seconds of the rows written so far.

    python -m experiments.cube3_optimal.first_cubes --first 200 --heuristic pdb-coset-eo2ep2 \\
        --threads 2 --order previous --time-limit 3600 --out results/cube3-optimal/first200.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.provenance import cpu_name
from core import safe_write
from core.errors import InputError
from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from solvers.ida import IDAStar
from suites.schema import load_suite
from suites.sources import load_instances

#: the settings every row of one file shares
SETTINGS = ("heuristic", "threads", "order", "time_limit_s")


def read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except ValueError:
            raise InputError(f"--out: line {n} of {path.name} is not JSON") from None
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    """One line over all rows, then a Markdown table by optimal length (unsolved cubes count
    at the seconds they ran, their time limit)."""
    if not rows:
        return "no rows"
    solved = [r for r in rows if r["status"] == "solved"]
    secs = [r["seconds"] for r in rows]
    lines = [f"{len(rows)} cubes, {len(solved)} solved, all optimal: "
             f"{all(r.get('optimal_found') for r in solved)}; seconds median "
             f"{statistics.median(secs):.1f}, mean {statistics.mean(secs):.1f}, max "
             f"{max(secs):.1f}; nodes generated median "
             f"{statistics.median(r['nodes_generated'] for r in rows):,.0f}",
             "", "| optimal | cubes | solved | median s | mean s | max s | median nodes |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for length in sorted({r["optimal"] for r in rows}):
        part = [r for r in rows if r["optimal"] == length]
        s = [r["seconds"] for r in part]
        lines.append(f"| {length} | {len(part)} | {sum(r['status'] == 'solved' for r in part)} | "
                     f"{statistics.median(s):.1f} | {statistics.mean(s):.1f} | {max(s):.1f} | "
                     f"{statistics.median(r['nodes_generated'] for r in part):,.0f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=200, help="DeepCubeA's first N cubes")
    ap.add_argument("--heuristic", default="pdb-coset-eo2ep2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--order", default="previous", help="IDA*'s subtree order")
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds per cube")
    ap.add_argument("--out", required=True)
    ap.add_argument("--summary", action="store_true", help="print the summary of --out and stop")
    args = ap.parse_args()
    out = Path(args.out)
    try:
        rows = read_rows(out)
        if args.summary:
            print(summary(rows))
            return
        if args.first < 1:
            raise InputError(f"--first: must be at least 1, got {args.first}")
        solver = IDAStar(threads=args.threads, order=args.order)
        want = {"heuristic": args.heuristic, "threads": args.threads, "order": args.order,
                "time_limit_s": args.time_limit}
        for r in rows:
            if any(r.get(k) != want[k] for k in SETTINGS):
                raise InputError(f"--out: {out.name} holds rows of other settings "
                                 f"({ {k: r.get(k) for k in SETTINGS} }); give another file")
        out.parent.mkdir(parents=True, exist_ok=True)
        # appended row by row, never through a link; opened before any table is read
        f = safe_write.open_append(out, binary=False, arg="--out", what="rows file")
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    done = {r["cube"] for r in rows}
    puzzle = get_puzzle("cube3")
    iset = load_instances(load_suite("cube3"), "deepcubea")
    todo = [i for i in iset.instances[: args.first] if i.id not in done]
    t0 = time.perf_counter()
    h = get_heuristic(args.heuristic, puzzle, progress=False)
    print(f"{args.heuristic}: loaded in {time.perf_counter() - t0:.1f} s, "
          f"{h.nbytes / 1e9:.2f} GB; {len(todo)} cubes to go", flush=True)
    with f:
        for inst in todo:
            c0 = time.process_time()
            res = solver.solve(puzzle, h, inst.state, Limits(time_s=args.time_limit))
            row: dict[str, Any] = {
                "cube": inst.id, "optimal": inst.optimal, **want,
                "status": str(res.status.value), "length": res.length,
                "optimal_found": res.length == inst.optimal if res.length is not None else None,
                "seconds": round(res.time_s, 2), "cpu_seconds": round(time.process_time() - c0, 2),
                "nodes_generated": res.nodes_generated, "nodes_expanded": res.nodes_expanded,
                "h_start": res.h_start, "iteration_nodes": res.extra.get("iteration_nodes"),
                "cpu": cpu_name()}
            if res.actions is not None:
                if not puzzle.check_solution(inst.state, res.actions):
                    raise RuntimeError(f"cube {inst.id}: the path does not solve it")
                if res.length != inst.optimal:
                    raise RuntimeError(f"cube {inst.id}: length {res.length}, optimum {inst.optimal}")
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps({k: row[k] for k in ("cube", "optimal", "status", "length",
                                                  "seconds", "nodes_generated")}), flush=True)
    print(summary(read_rows(out)))


if __name__ == "__main__":
    main()
