"""Optimal lengths of the states an evaluation CSV holds, by IDA* with the 6-6-3 PDB with
reflection, and each evaluation's % optimal and mean excess over them.
Usage: python -m experiments.learning_targets.optimal OUT.csv EVAL.csv [EVAL.csv ...]"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from core import registry
from core.limits import Limits


def main() -> None:
    out, *evals = sys.argv[1:]
    first = pd.read_csv(evals[0])
    p = registry.get_puzzle("puzzle15", goal="blank-last")
    h = registry.get_heuristic("pdb-663-reflect", p)
    ida = registry.get_solver("ida")
    rows = []
    for inst, text in zip(first["instance"], first["state"], strict=True):
        s = np.array([int(x) for x in str(text).split()], dtype=np.uint8)
        r = ida.solve(p, h, s, Limits(time_s=600))
        assert r.status == "solved"
        rows.append({"instance": inst, "optimal": r.length, "nodes": r.nodes_generated})
    opt = pd.DataFrame(rows)
    opt.to_csv(out, index=False)
    print(f"mean optimal {opt['optimal'].mean():.2f} over {len(opt)} states")
    for path in evals:
        df = pd.read_csv(path).merge(opt[["instance", "optimal"]], on="instance",
                                     suffixes=("_old", ""))
        ok = df[df["status"] == "solved"]
        excess = ok["length"] - ok["optimal"]
        print(f"{path}: solved {len(ok)}/{len(df)}, % optimal "
              f"{100 * float((excess == 0).sum()) / len(df):.0f}, mean excess "
              f"{excess.mean() if len(ok) else float('nan'):.2f}")


if __name__ == "__main__":
    main()
