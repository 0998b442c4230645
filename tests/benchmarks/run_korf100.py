"""IDA* over Korf's 100 15-puzzle instances with one heuristic; prints one row per instance and totals.

    python tests/benchmarks/run_korf100.py pdb-78-reflect [TIME_LIMIT_S]

Builds the heuristic's databases on first use (pdb-78: about half an hour). Every solution is
replayed by the solver and compared with the published optimal length.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.paths import instances_dir  # noqa: E402
from bench.registry import get_heuristic, get_puzzle, get_solver  # noqa: E402
from solvers.base import Limits  # noqa: E402


def main(heuristic: str, time_limit: float) -> None:
    puzzle = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic(heuristic, puzzle)
    ida = get_solver("ida")
    rows = []
    for line in (instances_dir() / "korf100_15puzzle.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        state = np.array([int(x) for x in fields[2:]], dtype=np.uint8)
        r = ida.solve(puzzle, h, state, Limits(time_s=time_limit))
        rows.append((int(fields[0]), r.status, r.length, int(fields[1]), r.nodes_generated, r.time_s))
        print(*rows[-1], flush=True)
    solved = [r for r in rows if r[1] == "solved"]
    total_s = sum(r[5] for r in rows)
    nodes = [r[4] for r in rows]
    print(f"{heuristic}: solved {len(solved)}/{len(rows)}, all optimal {all(r[2] == r[3] for r in solved)}, "
          f"search {total_s:.1f} s, mean nodes generated {np.mean(nodes):,.0f}, "
          f"{sum(nodes) / total_s:,.0f} nodes/s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "pdb-78-reflect",
         float(sys.argv[2]) if len(sys.argv) > 2 else 600.0)
