"""The project's optimal cube solver and nxopt on the same DeepCubeA cubes, interleaved.

For each cube in turn: IDA* with ``--heuristic`` (default ``pdb-coset-eo``) on ``--threads``
threads, then nxopt (``--program``, one thread; its table in ``--table-dir``) on the same cube,
so that both see the same machine state. nxopt is given the inverse of the pickle's optimal
solution (``peers.py``); both lengths must equal the pickle's optimum and both paths are
replayed on our cube. One JSON line per solver and cube goes to ``--out`` (appended; cubes
already there are skipped). ``--order`` is the IDA* solver's subtree order (``actions`` or
``previous``; a run of each order writes its own ``--out``).

    python -m experiments.cube3_optimal.side_by_side --program PEERS/nxopt/nxopt31q \\
        --table-dir PEERS/nxopt --cubes 107,13,72,118,141,2,46,6 --threads 1 \\
        --out results/cube3-optimal/side-by-side.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from bench.provenance import cpu_name
from core import safe_write
from core.errors import InputError
from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from experiments.cube3_optimal.peers import deepcubea_cubes, inverse_sequence, run_nxopt, to_nxopt
from solvers.ida import IDAStar


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--program", type=Path, required=True, help="nxopt's compiled program")
    ap.add_argument("--table-dir", type=Path, required=True, help="where nxopt's table is")
    ap.add_argument("--cubes", required=True, help="DeepCubeA cube ids, comma-separated")
    ap.add_argument("--heuristic", default="pdb-coset-eo")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--order", default="actions",
                    help="the IDA* solver's subtree order: actions or previous")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per cube (ours)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not args.program.is_file():
        ap.error(f"--program: {args.program} is not a file")
    try:  # the solver's options checked before any table is loaded
        solver = IDAStar(threads=args.threads, order=args.order)
    except InputError as exc:
        ap.error(str(exc))
    wanted = args.cubes.split(",")
    by_id = {c[0]: c for c in deepcubea_cubes(max(int(i) for i in wanted) + 1)}
    done: set[tuple[str, str]] = set()
    if args.out.is_file():
        done = {(r["solver"], r["cube"]) for r in
                (json.loads(x) for x in args.out.read_text().splitlines() if x.strip())}
    puzzle = get_puzzle("cube3")
    t0 = time.perf_counter()
    h = get_heuristic(args.heuristic, puzzle, progress=False)
    load_s = time.perf_counter() - t0
    common = {"cpu": cpu_name(), "optimal_source": "DeepCubeA's optimal solver"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with safe_write.open_append(args.out, binary=False, arg="--out") as f:
        def emit(row: dict[str, Any]) -> None:
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps({k: v for k, v in row.items() if k != "solution"}), flush=True)

        for cube_id in wanted:
            cid, state, actions = by_id[cube_id]
            optimal = len(actions)
            if ("ours", cid) not in done:
                r = solver.solve(puzzle, h, state, Limits(time_s=args.time_limit))
                if r.length is not None and (r.length != optimal
                                             or not puzzle.check_solution(state, r.actions or [])):
                    raise RuntimeError(f"cube {cid}: length {r.length}, optimum {optimal}")
                emit({**common, "solver": "ours", "program": args.heuristic, "cube": cid,
                      "optimal": optimal, "threads": args.threads, "order": args.order,
                      "status": r.status.value,
                      "length": r.length, "seconds": round(r.time_s, 3),
                      "nodes_generated": r.nodes_generated, "table_bytes": int(h.nbytes),
                      "load_s": round(load_s, 1)})
            if ("nxopt", cid) not in done:
                scramble = to_nxopt(inverse_sequence(puzzle, actions))
                rec = next(run_nxopt(args.program, args.table_dir, [scramble]))
                path = puzzle.parse_moves(" ".join(rec["moves"]))
                if rec["length"] != optimal or not puzzle.check_solution(state, path):
                    raise RuntimeError(f"cube {cid}: nxopt length {rec['length']}, optimum "
                                       f"{optimal}")
                table = sorted(args.table_dir.glob("*.dat"))
                emit({**common, "solver": "nxopt", "program": args.program.name, "cube": cid,
                      "optimal": optimal, "threads": 1, "status": "solved",
                      "length": rec["length"], "seconds": round(rec["seconds"], 3),
                      "probes": rec["probes"], "evals": rec["evals"],
                      "table_bytes": table[0].stat().st_size if table else None})


if __name__ == "__main__":
    main()
