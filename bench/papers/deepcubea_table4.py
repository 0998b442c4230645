"""The table ``deepcubea-table4``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the code that runs (or reads) one run per suite, counts our rows with the shared
columns (:mod:`bench.columns`) and sets the paper's figures and DeepCubeA's per-instance
lengths beside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import columns, report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    check_run_any,
    frame_rows,
    header,
    run_suite,
)
from core.errors import InputError


def deepcubea_table4(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                     command: str, profile: str | None = None,
                     runs: list[Path] | None = None) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame from ``runs`` (finished runs, at most one of each suite;
    none given: both suites are run with ``profile``, ``table4`` unless given)."""
    from bench import published
    from bench.run_table import load_table

    runs = list(runs or [])
    if not runs:
        for suite in ("puzzle24", "puzzle35"):
            runs.append(run_suite(suite, profile or "table4", limit, jobs,
                                   out.parent / "runs" / f"{out.name}-{suite}"))
    rows = []
    for run in runs:
        df = report.with_reference_optima(load_table(run))
        df = df[df["instance_set"] == "deepcubea"] if "instance_set" in df else df
        if df.empty:
            raise InputError(f"--run: {run} has no rows on DeepCubeA's test states")
        puzzle = str(df["puzzle"].iloc[0])
        files = published.per_instance(puzzle)
        for config, g in df.groupby("config", sort=False):
            ok = g[g["status"] == "solved"]
            theirs = [files["lengths"].get(int(i)) for i in ok["instance"]] if files else []
            listed = [(t, int(x)) for t, x in zip(theirs, ok["length"], strict=True) if t is not None]
            rows.append({
                "puzzle": puzzle, "solver": f"ours: {config}",
                "states": len(g), "finished": len(ok),
                "limit s": float(g["limit_time_s"].iloc[0]) if "limit_time_s" in g else None,
                "mean length": float(ok["length"].mean()) if len(ok) else None,
                "mean nodes": round(float(ok["nodes_generated"].mean())) if len(ok) else None,
                "mean seconds": float(ok["time_s"].mean()) if len(ok) else None,
                columns.OPTIMAL.label: str(columns.optimal_share(g)),
                f"DeepCubeA {columns.OPTIMAL.label} on these":
                    str(columns.optimal_share_of(*zip(*listed, strict=True))) if listed else None,
                "DeepCubeA mean length on these": float(np.mean([t for t in theirs
                                                                 if t is not None]))
                if theirs else None})

        def text(figure: str, pdb: bool = False, puzzle: str = puzzle) -> Any:
            value = published.stated(puzzle, ("pdb_" if pdb else "") + figure).value
            return "not stated" if value is None else value

        rows.append({"puzzle": puzzle, "solver": "PDB optimal solver (DeepCubeA, text)",
                     "mean length": text("mean_length", pdb=True),
                     "mean nodes": text("mean_nodes", pdb=True),
                     "mean seconds": text("mean_time_s", pdb=True),
                     columns.OPTIMAL.label: text("optimal_pct", pdb=True)})
        rows.append({"puzzle": puzzle, "solver": "DeepCubeA (text)",
                     "mean length": text("mean_length"), "mean nodes": text("mean_nodes"),
                     "mean seconds": text("mean_time_s"),
                     columns.OPTIMAL.label: text("optimal_pct")})
        if files:
            rows.append({"puzzle": puzzle,
                         "solver": f"DeepCubeA (results file, {files['n']} states)",
                         "mean length": round(files["mean_length"], 2),
                         "mean nodes": round(files["mean_nodes"]),
                         "mean seconds": round(files["mean_time_s"], 2)})
    table = pd.DataFrame(rows)
    lines = header("DeepCubeA Table 4: the PDB optimal solver on the 24- and 35-puzzle", command,
                    ["Ours: IDA* with the additive PDBs on DeepCubeA's first test states under a "
                     "per-state limit; `finished` counts the optimal solutions found within it; "
                     "`% optimal`: of the states with a known optimum, those solved at it, "
                     "with the count. "
                     f"`DeepCubeA {columns.OPTIMAL.label} on these`: of the states we finished "
                     "that its per-instance file lists, those it solved at our optimum, with the "
                     "count. The rows marked `text` hold what the paper "
                     "states (24-puzzle: the PDB solver 4,239 s and 8.19 x 10^10 nodes on "
                     "average, worst case 5 days; DeepCubeA 19.3 s, worst 2 minutes, 96.98% "
                     "optimal), `not stated` where it gives nothing; the results-file row: means "
                     "over every state DeepCubeA's per-instance file lists."])
    lines += [report.markdown_table(frame_rows(table)), ""]
    return "\n".join(lines), table


SUITES = ("puzzle24", "puzzle35")


def _check(req: Request) -> None:
    suites = [check_run_any(run, SUITES) for run in req.runs]
    if len(set(suites)) < len(suites):
        raise InputError("--run: give at most one run of each suite (puzzle24, puzzle35)")
    if req.runs and (req.profile is not None or req.limit is not None):
        raise InputError(f"--{'profile' if req.profile is not None else 'limit'}: {req.name} "
                         "reads the runs given with --run; give one or the other")


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return deepcubea_table4(None, req.limit, req.jobs, req.dest, req.command,
                            profile=req.profile, runs=list(req.runs))


TABLE = PaperTable(
    name="deepcubea-table4",
    summary="DeepCubeA's Table 4: IDA* with our additive PDBs (pdb-6666 / pdb-5x7, 10 minutes "
            "a state) on DeepCubeA's 24- and 35-puzzle test states, beside the paper's PDB "
            "optimal solver and DeepCubeA's lengths on the states it finishes.",
    make=_make, check=_check, suites=SUITES, runs="several", profile="table4",
    instances="DeepCubeA's first test states of suites puzzle24 and puzzle35 (profile table4)",
    published=("bench.published:TEXT", "bench.published:per_instance"),
    from_runs=("puzzle24-table4", "puzzle35-table4"),
)
