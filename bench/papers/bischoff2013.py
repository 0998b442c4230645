"""The table ``bischoff2013``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the published figures (:data:`BISCHOFF2013`) and the code that solves random
15-puzzles by local value iteration at each initial region size, replays a sample of the
solutions, and counts the classes and lengths."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import columns, report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    frame_rows,
    header,
    refuse_profile_and_run,
)

#: Bischoff et al. (2013): Table 1 (average actions per class), Theorem 2 (share of each class,
#: %), Theorem 3 (longest solution per class), Table 2 (average actions per initial region size)
BISCHOFF2013: dict[str, Any] = {
    "average": {1: 68.85, 2: 100.68, 3: 112.16, 4: 122.92, 5: 128.71, "all": 123.35},
    "share": {1: 0.04, 2: 6.62, 3: 18.3, 4: 8.3, 5: 66.6},
    "bound": {1: 142, 2: 220, 3: 248, 4: 255, 5: 288},
    "region": {1: 123.35, 2: 99.36, 3: 93.69, 4: 78.07, 5: 73.82},
    "largest_table": 10_080,
    "seconds_per_puzzle": 0.25,
}


#: the initial region sizes of Table 2
BISCHOFF2013_REGIONS = (1, 2, 3, 4, 5)


def bischoff2013(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                 command: str, count: int = 100_000, seed: int = 0) -> tuple[str, pd.DataFrame]:
    """The tables' markdown and frame over ``count`` random 15-puzzles."""
    from core import registry
    from solvers import lvi

    puzzle = registry.get_puzzle("puzzle15")
    states = puzzle.random_states(count, np.random.default_rng(seed))
    pub = BISCHOFF2013
    per_region: dict[int, dict[str, float]] = {}
    classes: np.ndarray | None = None
    lengths: np.ndarray | None = None
    for region in BISCHOFF2013_REGIONS:
        lvi.TABLES_USED.clear()
        t0 = time.perf_counter()
        for s in states[:1]:
            lvi.lvi_solve(4, s, region)  # computes the stage tables most solves need
        tables_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = [lvi.lvi_solve(4, s, region) for s in states]
        solve_s = (time.perf_counter() - t0) / count
        lens = np.array([len(r.actions) for r in res if r is not None])
        if len(lens) != count:
            raise RuntimeError("local value iteration left a state unsolved")
        for s, sol in zip(states[:200], res[:200], strict=True):  # replay a sample here too
            if sol is None or not puzzle.check_solution(s, sol.actions):
                raise RuntimeError("a local value iteration path does not solve its state")
        per_region[region] = {"mean": float(lens.mean()), "max": int(lens.max()),
                              "ms": 1000 * solve_s, "tables_s": tables_s,
                              "largest": max(lvi.TABLES_USED.values())}
        if region == 1:  # how many of the largest table's arrangements can be solved locally
            (w, g, r), _ = max(lvi.TABLES_USED.items(), key=lambda kv: kv[1])
            per_region[region]["solvable"] = int((lvi.local_table(w, g, r).dist
                                                  < lvi.UNSOLVED).sum())
        if region == 1:
            classes = np.array([r.largest_group for r in res if r is not None])
            lengths = lens
    rows = []
    if classes is not None and lengths is not None:
        for k in range(1, 6):
            m = classes == k
            rows.append({"table": "1", "class / region": f"S_{k}",
                         "share % (paper)": pub["share"][k],
                         "share % (ours)": round(columns.Share(int(m.sum()), len(m)).pct, 2),
                         "average actions (paper)": pub["average"][k],
                         "average actions (ours)": round(float(lengths[m].mean()), 2)
                         if m.any() else None,
                         "longest (bound, paper)": pub["bound"][k],
                         "longest (ours)": int(lengths[m].max()) if m.any() else None})
        rows.append({"table": "1", "class / region": "all",
                     "share % (paper)": None, "share % (ours)": None,
                     "average actions (paper)": pub["average"]["all"],
                     "average actions (ours)": round(float(lengths.mean()), 2),
                     "longest (bound, paper)": max(pub["bound"].values()),
                     "longest (ours)": int(lengths.max())})
    for region, fig in per_region.items():
        rows.append({"table": "2", "class / region": f"l = {region}",
                     "average actions (paper)": pub["region"][region],
                     "average actions (ours)": round(fig["mean"], 2), "longest (ours)": fig["max"],
                     "ms per puzzle (ours)": round(fig["ms"], 3),
                     "tables s (ours)": round(fig["tables_s"], 1),
                     "largest local table (ours)": fig["largest"]})
    df = pd.DataFrame(rows)
    largest = per_region.get(1, {}).get("largest")
    solvable = per_region.get(1, {}).get("solvable", 0)
    lines = header("Bischoff et al. (2013): local value iteration on the 15-puzzle", command, [
        f"{count:,} uniformly random solvable 15-puzzles (seed {seed}), goal blank-last, tiles "
        "placed in order. Table 1: the class S_k of a state is the size of the largest local "
        "region G it needed (l = 1); the paper's class shares are its Theorem 2, its longest "
        "solutions per class the bounds of its Theorem 3. Table 2: each stage starts with l "
        "tiles. The paper reports about 0.25 s per puzzle; `ms per puzzle` is ours (tables "
        "computed before timing: `tables s`).",
        f"Largest local state space (l = 1): {largest:,} arrangements of G and the blank on the "
        f"free cells (G = 9..13 once 1..8 are placed: 8 cells, 6 objects); the paper's Theorem 1 "
        f"gives {pub['largest_table']:,}, half of it, as a permutation-parity argument would, "
        f"but tiles 14 and 15 are not part of the local state (either may sit on either of the "
        f"two other cells), so no parity applies: value iteration reaches and solves "
        f"{solvable:,} of them (`tests/test_lvi.py`)." if largest else ""])
    lines += [report.markdown_table(frame_rows(df)), ""]
    return "\n".join(lines), df


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    assert req.count is not None
    return bischoff2013(None, req.limit, req.jobs, req.dest, req.command, count=req.count)


TABLE = PaperTable(
    name="bischoff2013",
    summary="Bischoff et al. (2013), Tables 1 and 2: local value iteration on random "
            "15-puzzles, the share, mean and longest solution of each class S_1..S_5, and the "
            "mean length per initial region size 1-5.",
    make=_make, check=refuse_profile_and_run, runs="none", count=100_000,
    instances="uniformly random solvable 15-puzzles (seed 0)",
    published=("bench.papers.bischoff2013:BISCHOFF2013",),
    method=("table-driven solvers", "solvers/table-driven.md#local-value-iteration"),
)
