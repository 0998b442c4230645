"""The 24-puzzle IDA* node rate under Korf and Felner's 6-6-6-6 tables and their reflection
(``pdb-6666kf-reflect``, the sparse layout): per search, the nodes generated (within a node
budget, or to the solution), CPU and wall seconds, then the rate over all searches.

    bench pdb build puzzle24 pdb-6666kf --jobs 2        # the tables, once (about 20 minutes)
    python tests/benchmarks/ida24_rate.py [STATES] [NODES] [ROUNDS] [THREADS]

STATES of DeepCubeA's 24-puzzle test states (``deepcubea-pdb45`` of suite puzzle24; default 4),
each searched to NODES generated nodes (default 50,000,000; 0: to the solution), ROUNDS times
(default 3), by THREADS threads (default 1; :mod:`solvers._ida_parallel`). Rates are per second
of CPU time and, divided by the threads, per second of wall time and core.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.registry import get_heuristic  # noqa: E402
from solvers import _ida_tiles  # noqa: E402
from suites.schema import load_suite  # noqa: E402
from suites.sources import load_instances, make_puzzle  # noqa: E402


def main(states: int = 4, nodes: int = 50_000_000, rounds: int = 3, threads: int = 1) -> None:
    suite = load_suite("puzzle24")
    iset = load_instances(suite, "deepcubea-pdb45", states, compute_optimal=False)
    p = make_puzzle(suite, iset.spec)
    spec = get_heuristic("pdb-6666kf-reflect", p).ida_spec()
    if not spec.tables.sparse:
        raise SystemExit("pdb-6666kf-reflect: the tables are not in the sparse layout")
    _ida_tiles.search(p, spec, iset.instances[0].state, 10_000, None)  # compile, load
    total_n, total_c, total_w = 0, 0.0, 0.0
    for r in range(rounds):
        for inst in iset.instances:
            t0, w0 = time.process_time(), time.perf_counter()
            out = _ida_tiles.search(p, spec, inst.state, nodes or None, None, threads=threads)
            dt, dw = time.process_time() - t0, time.perf_counter() - w0
            g = out["nodes_generated"]
            total_n, total_c, total_w = total_n + g, total_c + dt, total_w + dw
            print(f"round {r + 1} instance {inst.id}: {g} nodes, length "
                  f"{len(out['actions']) if out['actions'] else '-'}, {dt:.2f} CPU s, {dw:.2f} s, "
                  f"{g / dt / 1e6:.2f} M nodes/CPU s, {g / dw / threads / 1e6:.2f} M nodes/s per "
                  "core", flush=True)
    print(f"{threads} thread(s): {total_n} nodes, {total_c:.2f} CPU s, {total_w:.2f} s, "
          f"{total_n / total_c / 1e6:.2f} M nodes/CPU s, "
          f"{total_n / total_w / threads / 1e6:.2f} M nodes/s per core")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:5]))
