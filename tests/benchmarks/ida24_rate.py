"""The 24-puzzle IDA* node rate on one core under Korf and Felner's 6-6-6-6 tables and their
reflection (``pdb-6666kf-reflect``, the sparse layout), with and without the kernel's prefetch of
the children's table entries, in turn in one process: per search, the nodes generated within a
node budget and the CPU seconds, then each side's rate over all searches.

    bench pdb build puzzle24 pdb-6666kf --jobs 2        # the tables, once (about 20 minutes)
    python tests/benchmarks/ida24_rate.py [STATES] [NODES] [ROUNDS]

STATES of DeepCubeA's 24-puzzle test states (``deepcubea-pdb45`` of suite puzzle24; default 4),
each searched to NODES generated nodes (default 50,000,000), ROUNDS times (default 3).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.registry import get_heuristic  # noqa: E402
from solvers import _ida_tiles  # noqa: E402
from suites.schema import load_suite  # noqa: E402
from suites.sources import load_instances, make_puzzle  # noqa: E402


def main(states: int = 4, nodes: int = 50_000_000, rounds: int = 3) -> None:
    suite = load_suite("puzzle24")
    iset = load_instances(suite, "deepcubea-pdb45", states, compute_optimal=False)
    p = make_puzzle(suite, iset.spec)
    spec = get_heuristic("pdb-6666kf-reflect", p).ida_spec()
    if not spec.params.get("sparse"):
        raise SystemExit("pdb-6666kf-reflect: the tables are not in the sparse layout")
    sides = {"prefetch": spec,
             "no prefetch": dataclasses.replace(spec, params={**spec.params, "prefetch": False})}
    _ida_tiles.search(p, spec, iset.instances[0].state, 10_000, None)  # compile, load
    total = {k: [0, 0.0] for k in sides}
    for r in range(rounds):
        for inst in iset.instances:
            for name, sp in (sides.items() if r % 2 == 0 else reversed(sides.items())):
                t0 = time.process_time()
                out = _ida_tiles.search(p, sp, inst.state, nodes, None)
                dt = time.process_time() - t0
                total[name][0] += out["nodes_generated"]
                total[name][1] += dt
                print(f"round {r + 1} instance {inst.id} {name}: {out['nodes_generated']} nodes, "
                      f"{dt:.2f} s, {out['nodes_generated'] / dt / 1e6:.2f} M nodes/s", flush=True)
    for name, (n, s) in total.items():
        print(f"{name}: {n} nodes, {s:.2f} s, {n / s / 1e6:.2f} M nodes/s")
    a, b = (total[k][0] / total[k][1] for k in ("prefetch", "no prefetch"))
    print(f"prefetch / no prefetch: {a / b:.3f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
