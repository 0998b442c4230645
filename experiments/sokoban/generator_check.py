"""Check the Sokoban level generator: A* with the admissible matching heuristic on a seeded
sample of generated levels (every path replayed), and their optimal solution lengths beside
DeepCubeA's lengths on its 1,000 test levels (its per-level results file).

Usage: python -m experiments.sokoban.generator_check COUNT OUT.csv [--steps N] [--tries N]
[--room-steps N] [--turn P] [--pull P] [--seed N] [--time-s S] [--nodes N]
(generator options default to ``puzzles.sokoban_levels.LevelOptions``). Prints JSON lines: the
options and limits the levels were made and solved with, the generated levels' lengths, and
DeepCubeA's."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np
import pandas as pd

from bench import published
from core import registry
from core.limits import Limits
from puzzles.sokoban_levels import LevelOptions


def stats(x: np.ndarray) -> dict[str, float]:
    q = np.quantile(x, [0.1, 0.5, 0.9]) if len(x) else [np.nan] * 3
    return {"n": int(len(x)), "mean": float(np.mean(x)) if len(x) else np.nan,
            "p10": float(q[0]), "median": float(q[1]), "p90": float(q[2]),
            "max": float(np.max(x)) if len(x) else np.nan}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("count", type=int)
    ap.add_argument("out")
    d = LevelOptions()
    ap.add_argument("--steps", type=int, default=d.steps)
    ap.add_argument("--tries", type=int, default=d.tries)
    ap.add_argument("--room-steps", type=int, default=d.room_steps)
    ap.add_argument("--turn", type=float, default=d.turn)
    ap.add_argument("--pull", type=float, default=d.pull)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--time-s", type=float, default=60)
    ap.add_argument("--nodes", type=int, default=20_000_000)
    a = ap.parse_args()
    options = replace(d, steps=a.steps, tries=a.tries, room_steps=a.room_steps, turn=a.turn,
                      pull=a.pull).checked()
    p = registry.get_puzzle("sokoban")
    p.level_options = options
    h = registry.get_heuristic("sokoban-matching", p)
    astar = registry.get_solver("astar")
    print(json.dumps({"generator": options.as_dict(), "count": a.count, "seed": a.seed,
                      "solver": "astar", "heuristic": "sokoban-matching",
                      "time_s": a.time_s, "nodes": a.nodes}), flush=True)
    states, _ = p.scramble(a.count, options.steps, np.random.default_rng(a.seed))
    rows = []
    for i, s in enumerate(states):
        r = astar.solve(p, h, s, Limits(time_s=a.time_s, nodes=a.nodes))
        if str(r.status) == "solved" and not p.check_solution(s, r.actions):
            raise SystemExit(f"level {i}: A*'s path does not solve it")
        rows.append({"level": i, "status": str(r.status), "length": r.length,
                     "nodes": r.nodes_generated, "time_s": r.time_s, "state": p.format(s)})
        pd.DataFrame(rows).to_csv(a.out, index=False)  # after every level: a partial run shows
    df = pd.DataFrame(rows)
    solved = df[df["status"] == "solved"]
    print(json.dumps({"generated": {"solved_pct": 100 * len(solved) / len(df),
                                    **stats(solved["length"].to_numpy())}}))
    files = published.per_instance("sokoban")
    if files is not None:
        lens = np.array(list(files["lengths"].values()))
        print(json.dumps({"deepcubea_test_levels": stats(lens)}))


if __name__ == "__main__":
    main()
