"""Check the Sokoban level generator: A* with the admissible matching heuristic on a seeded
sample of generated levels (every path replayed), and their optimal solution lengths beside
DeepCubeA's lengths on its 1,000 test levels (its per-level results file).
Usage: python results/sokoban/generator_check.py COUNT STEPS OUT.csv"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd

from bench import published
from core import registry
from core.limits import Limits


def stats(x: np.ndarray) -> dict[str, float]:
    q = np.quantile(x, [0.1, 0.5, 0.9]) if len(x) else [np.nan] * 3
    return {"n": int(len(x)), "mean": float(np.mean(x)) if len(x) else np.nan,
            "p10": float(q[0]), "median": float(q[1]), "p90": float(q[2]),
            "max": float(np.max(x)) if len(x) else np.nan}


def main() -> None:
    count, steps, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    p = registry.get_puzzle("sokoban")
    h = registry.get_heuristic("sokoban-matching", p)
    astar = registry.get_solver("astar")
    states, _ = p.scramble(count, steps, np.random.default_rng(2026))
    rows = []
    for i, s in enumerate(states):
        r = astar.solve(p, h, s, Limits(time_s=60, nodes=20_000_000))
        rows.append({"level": i, "status": str(r.status), "length": r.length,
                     "nodes": r.nodes_generated, "time_s": r.time_s, "state": p.format(s)})
    df = pd.DataFrame(rows)
    df.to_csv(out, index=False)
    solved = df[df["status"] == "solved"]
    print(json.dumps({"generated": {"solved_pct": 100 * len(solved) / len(df),
                                    **stats(solved["length"].to_numpy())}}))
    files = published.per_instance("sokoban")
    if files is not None:
        lens = np.array(list(files["lengths"].values()))
        print(json.dumps({"deepcubea_test_levels": stats(lens)}))


if __name__ == "__main__":
    main()
