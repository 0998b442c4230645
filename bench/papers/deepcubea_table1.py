"""The table ``deepcubea-table1``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the code that runs (or reads) one run per suite, counts each configuration's
rows with the shared columns (:mod:`bench.columns`) and notes how the searches that solved
nothing ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import columns, report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    check_run,
    check_run_any,
    frame_rows,
    header,
    run_suite,
)
from core.errors import InputError

#: DeepCubeA's Table 1, the states farthest from the goal: (suite, instance set, what, number of
#: states, their distance, the key of the published figures in ``published.TEXT``)
TABLE1_SETS = (("cube3", "qtm26", "the 3 cubes at distance 26 in the quarter-turn metric", 3, 26,
                "qtm26"),
               ("puzzle15", "hardest17", "the 17 15-puzzles at distance 80", 17, 80, "hardest17"))
#: the published figures Table 1 shows (``published.TEXT`` keys) and their columns
TABLE1_PUBLISHED = (("mean_excess", "mean excess"), ("optimal_pct", columns.OPTIMAL.label))


def _table1_runs(runs: list[Path], limit: int | None, jobs: int | None, out: Path,
                 profile: str | None) -> dict[str, Path]:
    """The run of each suite of Table 1: the finished ``runs`` (one per suite, each a run of one
    of them), or, when none is given, runs of profile ``profile`` (``hardest``) made here."""
    suites = tuple(s for s, *_ in TABLE1_SETS)
    if not runs:
        return {s: run_suite(s, profile or "hardest", limit, jobs,
                              out.parent / "runs" / f"{out.name}-{s}") for s in suites}
    by_suite: dict[str, Path] = {}
    for rd in runs:
        check_run_any(rd, suites)
        for suite in suites:
            try:
                check_run(rd, suite)
            except InputError:
                continue
            if suite in by_suite:
                raise InputError(f"--run: {by_suite[suite]} and {rd} are both runs of suite "
                                 f"{suite}; give one per suite")
            by_suite[suite] = rd
    return by_suite


def _table1_figures(g: pd.DataFrame) -> dict[str, Any]:
    """Table 1's figures of one configuration's rows ``g`` on one instance set."""
    n = g["instance"].nunique()
    ok = g[g["status"] == "solved"]
    length = pd.to_numeric(ok["length"], errors="coerce").astype(float)
    opt_all = pd.to_numeric(g["optimal"], errors="coerce").dropna().astype(int) \
        if "optimal" in g else pd.Series(dtype=int)
    opt = pd.to_numeric(ok["optimal"], errors="coerce").astype(float) if "optimal" in ok \
        else pd.Series(np.nan, index=ok.index)
    known = opt.notna() & length.notna()
    excess = length[known] - opt[known]
    optima = sorted(set(opt_all))
    return {"states": n, "solved": f"{len(ok)}/{n}",
            "mean length": float(length.mean()) if len(ok) else "-",
            "optimal length": "not known" if not optima else
            str(optima[0]) if len(optima) == 1 else f"{optima[0]}-{optima[-1]}",
            "mean excess": float(excess.mean()) if known.any() else "-",
            columns.OPTIMAL.label: str(columns.optimal_share(g)) if len(opt_all) else "-",
            "mean nodes": float(round(pd.to_numeric(ok["nodes_generated"]).mean()))
            if len(ok) else "-",
            "mean seconds": float(pd.to_numeric(ok["time_s"]).mean()) if len(ok) else "-"}


def _limits_note(df: pd.DataFrame) -> str:
    """``, 60 s per state`` (one limit), or each configuration's limit where they differ."""
    if "limit_time_s" not in df:
        return ""
    limit = pd.to_numeric(df["limit_time_s"], errors="coerce")
    per_config = {str(c): sorted({float(t) for t in limit[df["config"] == c].dropna()})
                  for c in df["config"].unique()}
    every = sorted({t for ts in per_config.values() for t in ts})
    if len(every) <= 1:
        return f", {every[0]:g} s per state" if every else ""
    return ", " + ", ".join(f"{c} {' / '.join(f'{t:g}' for t in ts)} s" for c, ts in
                            per_config.items() if ts) + " per state"


def _unsolved_note(df: pd.DataFrame) -> str:
    """What the configurations that solved no state did within their limit (how each search
    ended, the nodes it generated before it stopped)."""
    out = []
    for config, g in df.groupby("config", sort=False):
        if (g["status"] == "solved").any():
            continue
        ends = ", ".join(f"{n} {s}" for s, n in g["status"].value_counts().items())
        nodes = pd.to_numeric(g.get("nodes_generated"), errors="coerce").dropna() \
            if "nodes_generated" in g else pd.Series(dtype=float)
        out.append(f" `{config}` solved none ({ends})"
                   + (f"; it generated {nodes.mean():,.0f} nodes a state on average before it "
                      "stopped" if len(nodes) else "") + ".")
    return "".join(out)


def deepcubea_table1(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                     command: str, profile: str | None = None,
                     runs: list[Path] | None = None) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame from ``runs`` (at most one finished run per suite; the
    suites it lacks are run with ``profile``, ``hardest`` unless given)."""
    from bench import published
    from bench.run_table import load_table

    by_suite = _table1_runs(list(runs or []), limit, jobs, out, profile)
    rows: list[dict[str, Any]] = []
    per_state: list[dict[str, Any]] = []
    notes = []
    for suite, set_name, what, count, distance, key in TABLE1_SETS:
        base = {"puzzle": suite, "instances": set_name}
        run = by_suite.get(suite)
        if run is None:
            rows.append({**base, "solver": "ours", "states": "not run here"})
        else:
            df = load_table(run)
            df = df[df["instance_set"] == set_name] if "instance_set" in df else df.iloc[:0]
            if df.empty:
                raise InputError(f"--run: {run} has no rows on instance set {set_name} ({what})")
            for config, g in df.groupby("config", sort=False):
                rows.append({**base, "solver": f"ours: {config}", **_table1_figures(g)})
            notes.append("")
            notes.append(f"Ours, {suite}: `{run}`, {df['instance'].nunique()} of {what}"
                         + _limits_note(df) + "." + _unsolved_note(df))
            for inst, g in df.groupby("instance", sort=False):
                opt = pd.to_numeric(g["optimal"], errors="coerce").dropna() \
                    if "optimal" in g else pd.Series(dtype=float)
                cell: dict[str, Any] = {"puzzle": suite, "instance": str(inst),
                                        "optimal": int(opt.iloc[0]) if len(opt) else "-"}
                lengths = g["length"] if "length" in g else pd.Series(pd.NA, index=g.index)
                for cfg, status, length in zip(g["config"], g["status"], lengths, strict=True):
                    cell[f"ours: {cfg}"] = str(int(length)) if status == "solved" \
                        and pd.notna(length) else str(status)
                per_state.append(cell)
        pub = {k: published.stated(key, k).value for k, _ in TABLE1_PUBLISHED}
        rows.append({**base, "solver": "DeepCubeA (paper)", "states": count,
                     "solved": "not recorded", "mean length": "not recorded",
                     "optimal length": str(distance),
                     **{label: "not recorded" if pub[k] is None else pub[k]
                        for k, label in TABLE1_PUBLISHED},
                     "mean nodes": "not recorded", "mean seconds": "not recorded"})
    table = pd.DataFrame(rows)
    lines = header("DeepCubeA Table 1: the states farthest from the goal, DeepCubeA beside ours",
                    command, [
                        "The cube's 3 positions at distance 26 in the quarter-turn metric (the "
                        "superflip composed with the four-spot and its conjugates under the "
                        "whole-cube rotations: instance set `qtm26` of suite `cube3`) and the 17 "
                        "15-puzzles at distance 80 (`hardest17` of suite `puzzle15`); the optimal "
                        "lengths are the instance files'. `solved`: states solved within the "
                        "limit; `% optimal`: states solved at the optimal length, of the states with a known "
                        "optimum (an unsolved state is not optimal), with the count; "
                        "mean length, excess, nodes generated and seconds over the solved states "
                        "(ours on this machine's CPU). DeepCubeA (paper): the figures its text "
                        "states (15-puzzle: 2.8 moves longer than optimal on average, 17.6% "
                        "optimal); `not recorded` where we hold no published figure. A "
                        "configuration that is IDA* (an optimal solver: `pdb-coset-ida` runs "
                        "IDA* with the coset table, the inverse probed near the bound, and "
                        "Korf's corner table) solves a state at its optimal length or not at "
                        "all; where it solves none, the note of its run says how its searches "
                        "ended within their limit. Seconds on a machine shared with other "
                        "work are indications.",
                        *notes])
    lines += [report.markdown_table(frame_rows(table)), ""]
    if per_state:
        lines += ["## Per state", "", "Solution length of each configuration (or how its "
                  "search ended).", "",
                  report.markdown_table(frame_rows(pd.DataFrame(per_state).fillna("-"))), ""]
    return "\n".join(lines), table


def _check(req: Request) -> None:
    if req.runs and req.profile is not None:
        raise InputError(f"--profile: {req.name} reads the runs given with --run; give one or "
                         "the other")
    if req.runs and req.limit is not None:
        raise InputError(f"--limit: {req.name} reads the runs given with --run; give one or "
                         "the other")


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return deepcubea_table1(None, req.limit, req.jobs, req.dest, req.command,
                            profile=req.profile, runs=list(req.runs))


TABLE = PaperTable(
    name="deepcubea-table1",
    summary="DeepCubeA's Table 1, the states farthest from the goal: the cube's 3 positions at "
            "distance 26 in the quarter-turn metric and the 17 15-puzzles at distance 80, our "
            "runs beside the figures the paper states. Ours: the shipped models' recommended "
            "searches and, on the cube, IDA* with pdb-coset (--probe-inverse near --corner-pdb "
            "corners, 180 s a state), whose notes say how its searches ended where it solves "
            "none.",
    make=_make, check=_check, suites=tuple(s for s, *_ in TABLE1_SETS), runs="several",
    profile="hardest",
    instances="the 3 cubes at distance 26 (qtm26) and the 17 15-puzzles at distance 80 "
              "(hardest17)",
    published=("bench.published:TEXT",),
)
