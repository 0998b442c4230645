"""Single-goal network against a multi-goal tree trained on as many states, by the same search on
the same states (every path replayed by the solver). Usage:
    python -m experiments.multigoal.compare PUZZLE SINGLE_RUN TREE_FOLDER COUNT WEIGHT BATCH OUT.csv
        [--solver bwas|beam] [--width W] [--max-depth D] [--states uniform|deepcubea]
        [--optimal CSV] [--time-limit S]
WEIGHT and BATCH are BWAS's lambda and N (ignored by beam). Prints one JSON line per model:
solved %, mean length, % optimal (the exact table where the puzzle has one, else the `optimal`
column of --optimal by instance), mean nodes, mean seconds, and the training CPU seconds of the
model(s)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from core import registry
from core.limits import Limits
from puzzles.exhaustive import has_table, table_distances


def train_seconds(folder: Path) -> float:
    total = 0.0
    for ckpt in sorted(folder.rglob("checkpoint.pt")):
        total += float(torch.load(ckpt, map_location="cpu", weights_only=False).get("cpu_s", 0.0))
    return total


def start_states(p, which: str, count: int) -> np.ndarray:
    if which == "deepcubea":
        from suites.sources import deepcubea_instances, deepcubea_source

        src = deepcubea_source(p.name)
        if src is None:
            raise SystemExit(f"--states: no DeepCubeA test set for {p.name} under ../shared")
        return np.stack([i.state for i in deepcubea_instances(p, src, limit=count)])
    return p.random_states(count, np.random.default_rng(0))


def main() -> None:
    ap = argparse.ArgumentParser()
    for name in ("puzzle", "single", "tree"):
        ap.add_argument(name)
    ap.add_argument("count", type=int)
    ap.add_argument("weight", type=float)
    ap.add_argument("batch", type=int)
    ap.add_argument("out")
    ap.add_argument("--solver", choices=("bwas", "beam"), default="bwas")
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--max-depth", type=int, default=1000)
    ap.add_argument("--states", choices=("uniform", "deepcubea"), default="uniform")
    ap.add_argument("--optimal", default=None)
    ap.add_argument("--time-limit", type=float, default=60.0)
    a = ap.parse_args()
    torch.set_num_threads(2)
    goal = "blank-last" if registry.puzzle_entry(a.puzzle).props.goal_layouts else None
    p = registry.get_puzzle(a.puzzle, goal=goal)
    states = start_states(p, a.states, a.count)
    if has_table(p):
        opt = table_distances(p, states)
    elif a.optimal:
        known = pd.read_csv(a.optimal).set_index("instance")["optimal"]
        opt = np.array([known.get(i, -1) for i in range(len(states))])
    else:
        opt = None
    # the options of each solver this comparison offers (the row records all but the depth cap)
    options = {"beam": {"width": a.width, "max_depth": a.max_depth},
               "bwas": {"weight": a.weight, "batch": a.batch}}[a.solver]
    solver = registry.get_solver(a.solver, **options)
    settings = {"solver": a.solver, **{k: v for k, v in options.items() if k != "max_depth"}}
    rows = []
    for label, hname, model in (("single-goal", "davi", a.single),
                                ("multi-goal", "davi-multigoal", a.tree)):
        h = registry.get_heuristic(hname, p, model=model)
        for i, s in enumerate(states):
            r = solver.solve(p, h, s, Limits(time_s=a.time_limit, nodes=5_000_000))
            rows.append({"model": label, "instance": i, "status": str(r.status), "length": r.length,
                         "optimal": None if opt is None or opt[i] < 0 else int(opt[i]),
                         "nodes": r.nodes_generated, "time_s": r.time_s})
        df = pd.DataFrame([r for r in rows if r["model"] == label])
        ok = df[df["status"] == "solved"]
        known_opt = ok[ok["optimal"].notna()]
        line = {"puzzle": a.puzzle, "model": label, "folder": model, "states": len(df),
                "state_set": a.states,
                "solved_pct": 100 * len(ok) / len(df),
                "mean_length": float(ok["length"].mean()) if len(ok) else None,
                "optimal_pct": None if not len(known_opt) else
                100 * float((known_opt["length"] == known_opt["optimal"]).mean()),
                "mean_nodes": float(ok["nodes"].mean()) if len(ok) else None,
                "mean_time_s": float(ok["time_s"].mean()) if len(ok) else None,
                "train_cpu_s": train_seconds(Path(model).parent if Path(model).is_file()
                                             else Path(model)),
                **settings}
        print(json.dumps(line), flush=True)
    pd.DataFrame(rows).to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
