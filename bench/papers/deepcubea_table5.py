"""The table ``deepcubea-table5``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the code that runs (or reads) the Sokoban run, counts each configuration's rows
with the shared columns (:mod:`bench.columns`) and sets DeepCubeA's per-level figures on the
same levels beside them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bench import columns, report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    frame_rows,
    header,
    run_suite,
)
from core.errors import InputError


def deepcubea_table5(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                     command: str, profile: str | None = None) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame from ``run_dir`` (the suite's profile ``table5``, or
    ``profile``, run first when none is given)."""
    from bench import published
    from bench.run_table import load_table

    run_dir = run_dir or run_suite("sokoban", profile or "table5", limit, jobs,
                                    out.parent / "runs" / out.name)
    df = report.with_reference_optima(load_table(run_dir))
    df = df[df["instance_set"] == "deepcubea"] if "instance_set" in df else df
    if df.empty:
        raise InputError(f"--run: {run_dir} has no rows on DeepCubeA's levels")
    files = published.per_instance("sokoban")
    levels = sorted({int(i) for i in df["instance"]})
    rows = []
    if files is not None:
        lens = [files["lengths"][i] for i in levels if i in files["lengths"]]
        per = df.drop_duplicates("instance")
        known = per[per["optimal"].notna()] if "optimal" in per else per.iloc[:0]
        theirs = [files["lengths"].get(int(i)) for i in known["instance"]]
        listed = [(t, o) for t, o in zip(theirs, known["optimal"], strict=True) if t is not None]
        rows.append({"solver": "DeepCubeA (results file, the same levels)",
                     "levels": len(levels),
                     columns.SOLVED_PCT.label: columns.Share(len(lens), len(levels)).pct,
                     "mean length": float(np.mean(lens)) if lens else None,
                     columns.OPTIMAL.label: str(columns.optimal_share_of(*zip(*listed, strict=True)))
                     if listed else None,
                     "mean nodes generated": None, "mean seconds": None})
        rows.append({"solver": "DeepCubeA (results file, all levels)", "levels": files["n"],
                     columns.SOLVED_PCT.label: published.stated("sokoban", "solved_pct").value,
                     "mean length": files["mean_length"],
                     columns.OPTIMAL.label: None, "mean nodes generated": round(files["mean_nodes"]),
                     "mean seconds": files["mean_time_s"]})
    for config, g in df.groupby("config", sort=False):
        st = report.summarize(g, ci=False).iloc[0]
        ok = g[g["status"] == "solved"]
        pub = pd.to_numeric(ok.get("published_length"), errors="coerce")
        rows.append({"solver": f"ours: {config}", "levels": int(st["n"]),
                     columns.SOLVED_PCT.label: st["solved_pct"], "mean length": st["mean_length"],
                     columns.OPTIMAL.label: columns.OPTIMAL.render(st),
                     "mean nodes generated": round(st["mean_nodes"]) if st["solved"] else None,
                     "mean seconds": st["mean_time_s"],
                     "length - DeepCubeA's": float((pd.to_numeric(ok["length"]) - pub).mean())
                     if len(ok) and pub.notna().any() else None})
    table = pd.DataFrame(rows)
    lines = header("DeepCubeA Table 5 (Sokoban): its test levels, DeepCubeA beside ours", command,
                    [f"Run: `{run_dir}` ({len(levels)} of DeepCubeA's 1,000 test levels). "
                     "DeepCubeA's figures come from its per-level results file (its nodes and "
                     "seconds are on its GPU machine; the paper states that all 1,000 levels were "
                     "solved); % optimal: against A* with the admissible matching heuristic "
                     "where it finished in this run."])
    lines += [report.markdown_table(frame_rows(table)), ""]
    return "\n".join(lines), table


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return deepcubea_table5(req.run, req.limit, req.jobs, req.dest, req.command,
                            profile=req.profile)


TABLE = PaperTable(
    name="deepcubea-table5",
    summary="DeepCubeA's Table 5 (Sokoban): A* and BWAS with the classic heuristics and BWAS "
            "with the shipped network on DeepCubeA's 1,000 test levels, beside DeepCubeA's "
            "per-level results file.",
    make=_make, suites=("sokoban",), runs="one", profile="table5",
    instances="DeepCubeA's test levels in suite sokoban (profile table5)",
    published=("bench.published:per_instance",),
    from_runs=("sokoban-table5",),
)
