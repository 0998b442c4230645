"""Single-goal DAVI against a multi-goal tree trained on as many states, by BWAS on the same
random states (every path replayed by the solver). Usage:
    python results/multigoal/compare.py PUZZLE SINGLE_RUN TREE_FOLDER COUNT WEIGHT BATCH OUT.csv
Prints one JSON line per model: solved %, mean length, % optimal (exact table where the puzzle
has one), mean nodes, mean seconds, and the training CPU seconds of the model(s)."""

from __future__ import annotations

import json
import sys
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


def main() -> None:
    puzzle_name, single, tree, count, weight, batch, out = sys.argv[1:8]
    torch.set_num_threads(2)
    p = registry.get_puzzle(puzzle_name)
    states = p.random_states(int(count), np.random.default_rng(0))
    opt = table_distances(p, states) if has_table(p) else None
    solver = registry.get_solver("bwas", weight=float(weight), batch=int(batch))
    rows = []
    for label, hname, model in (("single-goal", "davi", single), ("multi-goal", "davi-multigoal",
                                                                    tree)):
        h = registry.get_heuristic(hname, p, model=model)
        for i, s in enumerate(states):
            r = solver.solve(p, h, s, Limits(time_s=60, nodes=5_000_000))
            rows.append({"model": label, "instance": i, "status": str(r.status), "length": r.length,
                         "optimal": None if opt is None else int(opt[i]),
                         "nodes": r.nodes_generated, "time_s": r.time_s})
        df = pd.DataFrame([r for r in rows if r["model"] == label])
        ok = df[df["status"] == "solved"]
        line = {"puzzle": puzzle_name, "model": label, "folder": model, "states": len(df),
                "solved_pct": 100 * len(ok) / len(df),
                "mean_length": float(ok["length"].mean()) if len(ok) else None,
                "optimal_pct": None if opt is None or not len(ok) else
                100 * float((ok["length"] == ok["optimal"]).mean()),
                "mean_nodes": float(ok["nodes"].mean()) if len(ok) else None,
                "mean_time_s": float(ok["time_s"].mean()) if len(ok) else None,
                "train_cpu_s": train_seconds(Path(model).parent if Path(model).is_file()
                                             else Path(model)),
                "weight": float(weight), "batch": int(batch)}
        print(json.dumps(line), flush=True)
    pd.DataFrame(rows).to_csv(out, index=False)


if __name__ == "__main__":
    main()
