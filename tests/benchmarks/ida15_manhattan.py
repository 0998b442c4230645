"""Manhattan IDA* over Korf's 15-puzzle instances, as ``../shared/tools/ref_ida15.c`` runs them:
one line per instance (length, nodes generated, CPU seconds) and the total; for timing this
project's kernel against the C reference as whole processes, pair by pair.

    python tests/benchmarks/ida15_manhattan.py [FIRST LAST]    # Korf ids, default 1 10
    python tests/benchmarks/ida15_manhattan.py 1 0             # no instance: the fixed cost
    gcc -O3 -march=native -o ref_ida15 ../shared/tools/ref_ida15.c
    sed -n '...' korf100 | ./ref_ida15                         # the same instances in C
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.paths import instances_dir  # noqa: E402
from core.registry import get_heuristic, get_puzzle  # noqa: E402
from solvers import _ida_tiles  # noqa: E402


def main(first: int = 1, last: int = 10) -> None:
    rows = [ln.split() for ln in (instances_dir() / "korf100_15puzzle.txt").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]
    p = get_puzzle("puzzle15", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    _ida_tiles.warmup(p, spec)
    total, cpu = 0, 0.0
    for r in rows[first - 1:last]:
        t0 = time.process_time()
        out = _ida_tiles.search(p, spec, np.array([int(x) for x in r[2:]], np.uint8), None, None)
        dt = time.process_time() - t0
        if len(out["actions"]) != int(r[1]):
            raise SystemExit(f"instance {r[0]}: length {len(out['actions'])}, published {r[1]}")
        total += out["nodes_generated"]
        cpu += dt
        print(f"{r[0]} len={len(out['actions'])} nodes={out['nodes_generated']} time={dt:.3f}")
    rate = total / cpu / 1e6 if cpu > 0 else 0.0
    print(f"total nodes={total} time={cpu:.2f} Mnodes/s={rate:.1f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
