"""IDA* over Korf's 100 15-puzzle instances with one heuristic; prints one row per instance and totals.

    python tests/benchmarks/run_korf100.py pdb-78-reflect [TIME_LIMIT_S] [N_UNIFORM]

With N_UNIFORM, instead runs N uniform random blank-first instances (numpy seed 2004), the kind of
instance set Felner, Korf and Hanan averaged over (their 1000 are not published).

Builds the heuristic's databases on first use (pdb-78: about half an hour). Every solution is
replayed by the solver and compared with the published optimal length.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.limits import Limits  # noqa: E402
from core.paths import instances_dir  # noqa: E402
from core.registry import get_heuristic, get_puzzle, get_solver  # noqa: E402


def instances(puzzle, n_uniform: int) -> list[tuple[int, int | None, np.ndarray]]:
    """(id, optimal length or None, state) for Korf's 100 or ``n_uniform`` random states."""
    if n_uniform:
        states = puzzle.random_states(n_uniform, np.random.default_rng(2004))
        return [(i + 1, None, s) for i, s in enumerate(states)]
    out = []
    for line in (instances_dir() / "korf100_15puzzle.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        out.append((int(fields[0]), int(fields[1]),
                    np.array([int(x) for x in fields[2:]], dtype=np.uint8)))
    return out


def main(heuristic: str, time_limit: float, n_uniform: int = 0) -> None:
    puzzle = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic(heuristic, puzzle)
    ida = get_solver("ida")
    rows = []
    for ident, optimal, state in instances(puzzle, n_uniform):
        r = ida.solve(puzzle, h, state, Limits(time_s=time_limit))
        rows.append((ident, r.status, r.length, optimal, r.nodes_generated, r.time_s))
        print(*rows[-1], flush=True)
    solved = [r for r in rows if r[1] == "solved"]
    total_s = sum(r[5] for r in rows)
    nodes = [r[4] for r in rows]
    checked = [r for r in solved if r[3] is not None]
    optimal = f"{sum(r[2] == r[3] for r in checked)}/{len(checked)} equal the published optimum" if checked \
        else "no published optima"
    print(f"{heuristic}: solved {len(solved)}/{len(rows)}, {optimal}, "
          f"search {total_s:.1f} s, mean nodes generated {np.mean(nodes):,.0f}, "
          f"{sum(nodes) / total_s:,.0f} nodes/s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "pdb-78-reflect",
         float(sys.argv[2]) if len(sys.argv) > 2 else 600.0,
         int(sys.argv[3]) if len(sys.argv) > 3 else 0)
