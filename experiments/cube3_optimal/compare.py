"""Time and nodes per cube of IDA* under ``pdb-korf`` and ``pdb-coset`` (and its options) on
vcube16.

Writes ``results/cube3-optimal/rows.jsonl`` (or ``--out``: one row per cube and heuristic:
status, length, seconds, nodes generated, nodes and seconds per finished iteration) and prints
each row. A run that reaches its time limit or ``--max-bound`` still reports the nodes of its
finished iterations, which compare the heuristics bound by bound. With ``--max-bound`` each
iteration is timed (``iteration_seconds``: wall clock; ``iteration_cpu_seconds``: this
process's CPU time, less sensitive to other jobs on a shared machine).

A heuristic is a name with options after colons, e.g. ``pdb-coset:probe_inverse=on:corner_pdb=
corners``. ``--puzzle cube3`` searches the same cubes in the quarter-turn metric (their
optimal lengths there are unknown).

    python -m experiments.cube3_optimal.compare --cubes 1,2,3 --time-limit 120

``--threads 1,2`` searches each cube once per thread count (IDA* with each iteration's subtrees
shared out to the threads, :mod:`solvers._ida_parallel`). With ``--max-bound`` a search on
several threads stops at the node count the one-thread search reached at that bound (so the
thread counts must start with 1; where that search solved the cube or ran out of time, at the
solution or the time limit); its rows have wall seconds per iteration only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from solvers.ida import IDAStar, kernel_module
from suites.schema import load_suite
from suites.sources import load_instances

OUT = Path("results/cube3-optimal")


def parse_heuristic(text: str) -> tuple[str, dict[str, str]]:
    """``name:key=value:...`` -> ``(name, options)``."""
    name, *opts = text.split(":")
    return name, dict(o.split("=", 1) for o in opts)


def timed_search(puzzle: Any, h: Any, start: np.ndarray, time_limit: float,
                 max_bound: int) -> dict[str, Any]:
    """IDA* through the heuristic's kernel, one cost bound after another, timing each
    iteration; stops at a solution, at ``time_limit`` or after the iteration of ``max_bound``."""
    from solvers import _ida_engine as E

    spec = h.ida_spec()
    module = kernel_module(spec.family)
    module.warmup(puzzle, spec)
    search = module.CubeSearch(puzzle, spec, start) if spec.family == "cube" else \
        module.CosetSearch(puzzle, spec, start)
    t_start = time.perf_counter()
    deadline = t_start + time_limit
    ctl = search.ctl
    ctl[:] = 0
    nodes: list[int] = []
    seconds: list[float] = []
    cpu: list[float] = []
    bounds: list[int] = []
    bound = search.first_bound()
    h_start = search.h_root
    status, actions = "bound-limit", None
    while bound <= max_bound:
        before, t0, c0 = int(ctl[E.GEN]), time.perf_counter(), time.process_time()
        ctl[E.NEXT] = E.INF
        ctl[E.EXP] += 1
        search.begin(bound)
        code = E.PAUSED
        while code == E.PAUSED:
            code = search.run(1 << 18)
            if code == E.PAUSED and time.perf_counter() > deadline:
                break
        if code == E.SOLVED:
            actions = search.solution()
            if not puzzle.check_solution(start, actions):
                raise RuntimeError("a returned path does not solve the cube")
            status = "solved"
            break
        if code == E.PAUSED:
            status = "timeout"
            break
        nodes.append(int(ctl[E.GEN]) - before)
        bounds.append(int(bound))
        seconds.append(round(time.perf_counter() - t0, 3))
        cpu.append(round(time.process_time() - c0, 3))
        bound = search.next_bound(int(ctl[E.NEXT]))
    return {"status": status, "length": None if actions is None else len(actions),
            "seconds": round(time.perf_counter() - t_start, 2), "h_start": int(h_start),
            "nodes_generated": int(ctl[E.GEN]), "iteration_bounds": bounds,
            "iteration_nodes": nodes,
            "iteration_seconds": seconds, "iteration_cpu_seconds": cpu}


def timed_parallel(puzzle: Any, h: Any, start: np.ndarray, time_limit: float, threads: int,
                   through_nodes: int | None, max_bound: int | None) -> dict[str, Any]:
    """IDA* on ``threads`` threads; with ``through_nodes`` (the nodes a one-thread search
    generated through ``max_bound``) it stops at that node limit and reports the iterations
    up to ``max_bound``."""
    spec = h.ida_spec()
    module = kernel_module(spec.family)
    module.warmup(puzzle, spec)
    t0 = time.perf_counter()
    out = module.search(puzzle, spec, start, through_nodes, time.monotonic() + time_limit,
                        threads=threads)
    seconds = time.perf_counter() - t0
    keep = len(out["iteration_bounds"])
    if max_bound is not None and out["status"] != "solved":
        keep = sum(1 for b in out["iteration_bounds"] if b <= max_bound)
        status = "bound-limit" if out["status"] == "node-limit" else out["status"]
    else:
        status = out["status"]
    actions = out["actions"]
    if actions is not None and not puzzle.check_solution(start, actions):
        raise RuntimeError("a returned path does not solve the cube")
    return {"status": status, "length": None if actions is None else len(actions),
            "seconds": round(seconds, 2), "h_start": int(h(start[None, :])[0]),
            "nodes_generated": int(out["nodes_generated"]),
            "iteration_bounds": [int(b) for b in out["iteration_bounds"][:keep]],
            "iteration_nodes": [int(n) for n in out["iteration_nodes"][:keep]],
            "iteration_seconds": [round(x, 3) for x in out["iteration_seconds"][:keep]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubes", default="1,2,3", help="vcube16 ids, comma-separated")
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--heuristics", default="pdb-korf,pdb-coset",
                    help="comma-separated; options after colons (name:key=value)")
    ap.add_argument("--puzzle", default="cube3-htm", choices=("cube3-htm", "cube3"))
    ap.add_argument("--max-bound", type=int, default=None,
                    help="stop after this bound's iteration (timed per iteration)")
    ap.add_argument("--threads", default="1",
                    help="comma-separated thread counts, each cube searched with each")
    ap.add_argument("--out", default=str(OUT / "rows.jsonl"))
    args = ap.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    if args.max_bound is not None and thread_counts[0] != 1:
        raise SystemExit("--threads: with --max-bound the thread counts start with 1")
    puzzle = get_puzzle(args.puzzle)
    iset = load_instances(load_suite("cube3-htm"), "vcube16")
    wanted = [s.strip() for s in args.cubes.split(",")]
    by_id = {inst.id: inst for inst in iset.instances}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:  # a row is written as soon as it is made
        for text in args.heuristics.split(","):
            hname, opts = parse_heuristic(text)
            t0 = time.perf_counter()
            h = get_heuristic(hname, puzzle, progress=False, **opts)
            load = time.perf_counter() - t0
            print(f"{text}: loaded in {load:.1f} s, {h.nbytes / 2**20:.1f} MiB", flush=True)
            for cid in wanted:
                inst = by_id[cid]
                optimal = inst.optimal if args.puzzle == "cube3-htm" else None
                through: int | None = None  # one thread's nodes through --max-bound
                for threads in thread_counts:
                    row: dict[str, Any] = {"cube": cid, "puzzle": args.puzzle,
                                           "optimal": optimal, "heuristic": text}
                    if threads > 1:
                        row.update(timed_parallel(puzzle, h, inst.state, args.time_limit,
                                                  threads, through, args.max_bound))
                    elif args.max_bound is None:
                        r = IDAStar(threads=threads).solve(puzzle, h, inst.state,
                                                           Limits(time_s=args.time_limit))
                        row.update(status=str(r.status.value), length=r.length,
                                   seconds=round(r.time_s, 2), nodes_generated=r.nodes_generated,
                                   h_start=r.h_start,
                                   iteration_nodes=r.extra.get("iteration_nodes"))
                    else:
                        row.update(timed_search(puzzle, h, inst.state, args.time_limit,
                                                args.max_bound))
                        if row["status"] == "bound-limit":
                            through = row["nodes_generated"]
                    if args.max_bound is not None:
                        row["max_bound"] = args.max_bound
                    row["threads"] = threads
                    row["time_limit_s"] = args.time_limit
                    f.write(json.dumps(row) + "\n")
                    f.flush()
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
