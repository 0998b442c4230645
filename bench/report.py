"""Aggregates over a run's tidy table (pure functions of a DataFrame).

``summarize(df)``: one row per configuration over all its instances, one field per column of
``bench.columns.SUMMARY`` (each column's aggregate, label and legend are declared there once):
solved %, failures by name, mean and median length, % optimal, mean excess over optimal, % at
lower bound, mean and median nodes generated, mean time, nodes per second, peak memory,
heuristic memory; bootstrap 95% confidence intervals on the means.

``compare(df)``: the same on the instances *every* compared configuration solved (Fast
Downward Lab's rule), so that means are comparable; it shows figures of those instances only.

% optimal counts the instances with a known reference optimum (an unsolved one is not
optimal); excess is over the solved ones; where no instance has one they are NaN and print as
``n/a``, never guessed. ``with_reference_optima(df)``
takes the reference of an instance without one from a configuration of the same run that is
optimal by construction (IDA* or plain A* with an admissible heuristic, GF(2) elimination), and
records in ``optimal_from`` where each reference came from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench import columns
from bench.columns import bootstrap_ci
from bench.report_optima import (
    bounds_note,
    optimal_by_construction,
    optimality_note,
    reference_note,
    with_all_columns,
    with_reference_optima,
)

__all__ = ["bootstrap_ci", "compare", "display_table", "summarize"]

#: CPU scores further apart than this ratio: the runs' seconds are not comparable
SPEED_SPREAD = 1.25


def machines_note(df: pd.DataFrame, always: bool = False) -> str:
    """Which runs the rows of a table come from (a run: its provenance ``date``) and how fast
    their machines were (``cpu_score``), or "" where every row comes from one run (unless
    ``always``): seconds measured in several runs compare only where the scores agree."""
    if "date" not in df or df.empty:
        return ""
    dates = df["date"].astype("string").fillna("unknown")
    scores = pd.to_numeric(df["cpu_score"], errors="coerce") if "cpu_score" in df else \
        pd.Series(np.nan, index=df.index)
    runs = pd.DataFrame({"date": dates, "score": scores}).groupby("date", sort=True)["score"]
    n = runs.ngroups
    if n <= 1 and not always:
        return ""
    first, last = str(dates.min())[:16].replace("T", " "), str(dates.max())[:16].replace("T", " ")
    text = (f"Rows from {n} run{'s' if n > 1 else ''}"
            + (f" ({first} to {last} UTC)" if n > 1 else f" ({first} UTC)"))
    known = runs.max().dropna()
    unknown = n - len(known)
    if len(known):
        lo, hi = float(known.min()), float(known.max())
        text += (f"; CPU score {lo:g}" if lo == hi else f"; CPU scores {lo:g} to {hi:g}") \
            + " (millions of values one core sorts per second)"
        if hi / lo > SPEED_SPREAD:
            text += (f", {hi / lo:.2g} times apart: seconds of different runs are not "
                     "comparable")
    if unknown:
        text += (f"; {unknown} run{'s' if unknown > 1 else ''} without a CPU score (made "
                 "before it was recorded)")
        if n > 1:
            text += ": whether their machines ran at the same speed is unknown"
    return text + "."


def revision_note(df: pd.DataFrame) -> str:
    """A warning naming the rows of ``df`` whose code cannot be traced to a commit: made from a
    tree with uncommitted changes (``git_dirty``, or a ``git_rev`` ending ``-dirty`` in rows made
    before it was recorded), from a revision that is not in this checkout's history, or with no
    revision; "" where every row names a clean commit of the history."""
    if df.empty:
        return ""
    from bench.provenance import revision_known

    revs = df["git_rev"].astype("string").fillna("") if "git_rev" in df else \
        pd.Series("", index=df.index, dtype="string")
    flagged = df["git_dirty"].map(lambda v: v is True or v == "True" or v == 1) \
        if "git_dirty" in df else pd.Series(False, index=df.index)
    dirty = flagged | revs.str.endswith("-dirty")
    known = {r: revision_known(r) for r in revs.unique() if r}
    missing = revs.map(lambda r: r != "" and known.get(r) is False)
    unnamed = revs == ""
    parts = []
    if dirty.any():
        names = sorted({str(r) for r in revs[dirty] if r})
        diffs = sorted({str(d) for d in df.loc[dirty, "git_diff_sha256"]
                        if isinstance(d, str) and d}) if "git_diff_sha256" in df else []
        parts.append(f"{int(dirty.sum())} of {len(df)} rows were made from a tree with "
                     f"uncommitted changes (git {', '.join(names) or 'unknown'}"
                     + (f"; diff {', '.join(diffs)}" if diffs else "")
                     + "): their code is in no commit")
    if missing.any():
        names = sorted({str(r) for r in revs[missing]})
        parts.append(f"{int(missing.sum())} of {len(df)} rows name a revision missing from "
                     f"this checkout's history ({', '.join(names)})")
    if unnamed.any():
        parts.append(f"{int(unnamed.sum())} of {len(df)} rows name no revision")
    return ("Traceability: " + "; ".join(parts) + ".") if parts else ""


def _num(s: pd.Series) -> np.ndarray:
    return pd.to_numeric(s, errors="coerce").astype(float).to_numpy()


def _stats(g: pd.DataFrame, ci: bool, seed: int) -> dict[str, Any]:
    """Every column of ``columns.SUMMARY`` over one configuration's rows ``g``."""
    return columns.aggregate(with_all_columns(g), ci=ci, seed=seed)


def summarize(df: pd.DataFrame, by: str = "config", ci: bool = True, seed: int = 0) -> pd.DataFrame:
    """One row per ``by`` value over all its rows (see the module docstring for the columns)."""
    rows = []
    for name, g in df.groupby(by, sort=False):
        rows.append({by: name, **_stats(g, ci, seed)})
    return pd.DataFrame(rows)


def common_solved(df: pd.DataFrame, configs: Sequence[str] | None = None,
                  by: str = "config") -> pd.DataFrame:
    """The rows of ``configs`` on the instances that every one of them solved."""
    configs = list(configs) if configs is not None else list(df[by].unique())
    sub = df[df[by].isin(configs)]
    ok = sub[sub["status"] == "solved"].groupby(["instance_set", "instance"])[by].nunique()
    common = ok[ok == len(configs)].index
    keyed = sub.set_index(["instance_set", "instance"])
    return keyed[keyed.index.isin(common)].reset_index()


def compare(df: pd.DataFrame, configs: Sequence[str] | None = None, by: str = "config",
            ci: bool = True, seed: int = 0) -> pd.DataFrame:
    """``summarize`` restricted to the commonly solved instances of ``configs``: every figure
    concerns those instances only (no failures: each configuration solved each of them).

    Configurations that solved no instance are listed (n = 0) but do not empty the common set;
    the printed comparison leaves them out and names them under it.
    """
    configs = list(configs) if configs is not None else list(df[by].unique())
    # a configuration that solved nothing would empty the common set: compare the others
    active = [c for c in configs if ((df[by] == c) & (df["status"] == "solved")).any()]
    common = common_solved(df, active or configs, by)
    rows: list[dict[str, Any]] = []
    for name in configs:
        g = common[common[by] == name]
        stats: dict[str, Any] = _stats(g, ci, seed) if len(g) else {"n": 0, "solved": 0}
        rows.append({by: name, **stats})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- formatting
def _fmt(v: Any, digits: int = 2) -> str:
    return columns._fmt(v, digits)


def display_table(summary: pd.DataFrame, by: str = "config", comparison: bool = False,
                  terminal: bool = False) -> list[list[str]]:
    """Header + rows of formatted strings for a summary frame (the columns of
    ``columns.SUMMARY`` it shows; ``comparison``: a ``compare`` frame, its configurations that
    solved nothing left out; ``terminal``: the columns that fit a console)."""
    if comparison and "n" in summary:
        summary = summary[pd.to_numeric(summary["n"], errors="coerce") > 0]
    return columns.table(summary, by, comparison=comparison, terminal=terminal)


def legend_text(summary: pd.DataFrame, comparison: bool = False, terminal: bool = False) -> str:
    """What the columns a table of ``summary`` shows mean, one line each."""
    return columns.legend(columns.shown_columns(summary, comparison, terminal))


def left_out_note(comp: pd.DataFrame, by: str = "config") -> str:
    """The configurations a comparison leaves out (they solved no instance), or ""."""
    gone = [str(c) for c, n in zip(comp[by], comp["n"], strict=True) if not n]
    return f"Not compared (solved no instance): {', '.join(gone)}." if gone else ""


def markdown_table(table: list[list[str]]) -> str:
    header, *rows = table
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def text_table(table: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in table)


def published_table(g: pd.DataFrame) -> list[list[str]] | None:
    """Header + rows for the published solvers on the same instances as ``g`` (one instance set,
    after ``with_reference_optima``): DeepCubeA's learned solutions (its results file) and
    EfficientCube's per-instance results by beam width, each with solved, mean length, % optimal
    over the instances with a reference (same denominator as ours) and mean excess; None when no
    per-instance published figure exists for the set."""
    from bench.published import efficientcube_lengths

    inst = with_all_columns(g).drop_duplicates("instance")
    opt = pd.to_numeric(inst["optimal"], errors="coerce")
    ids = inst["instance"].astype(str).tolist()
    sources: list[tuple[str, str, list[float]]] = []
    if "published_length" in inst and pd.to_numeric(inst["published_length"],
                                                    errors="coerce").notna().any():
        pub = pd.to_numeric(inst["published_length"], errors="coerce").astype(float).tolist()
        sources.append(("DeepCubeA (results file)", "its BWAS, GPUs", pub))
    puzzle = str(inst["puzzle"].iat[0]) if "puzzle" in inst and len(inst) else ""
    if str(inst["instance_set"].iat[0]) == "deepcubea":
        widths = efficientcube_lengths(puzzle) or {}
        for width in sorted(widths):
            by_id = widths[width]
            if not all(i in by_id for i in ids):
                continue
            lengths = [math.nan if (v := by_id[i]) is None else float(v) for i in ids]
            sources.append(("EfficientCube (per-instance results)", f"beam {width:,}, T4 GPU",
                            lengths))
    if not sources:
        return None
    header = ["published", "search", "n", "solved", "mean length", columns.OPTIMAL.label,
              "mean excess"]
    rows = [header]
    o = opt.astype(float).to_numpy()
    n_ref = int((~np.isnan(o)).sum())
    for name, search, lengths in sources:
        ln = np.asarray(lengths, dtype=float)
        solved = ~np.isnan(ln)
        known = solved & ~np.isnan(o)
        k = int((ln[known] == o[known]).sum())
        rows.append([name, search, _fmt(len(ln)), _fmt(int(solved.sum())),
                     _fmt(float(ln[solved].mean()) if solved.any() else math.nan),
                     str(columns.Share(k, n_ref)),
                     _fmt(float((ln[known] - o[known]).mean()) if known.any() else math.nan)])
    return rows


def solver_tables(g: pd.DataFrame) -> tuple[list[list[str]], list[list[str]]] | None:
    """For one instance set's rows whose instances carry the reference optimal solver's nodes
    and seconds (``solver_nodes``, ``solver_s``: DeepCubeA's pickles): per optimal-by-construction
    configuration, totals beside that solver's on the same instances, and the per-instance
    figures; None when the set has none or no configuration is optimal by construction."""
    if "solver_nodes" not in g or pd.to_numeric(g["solver_nodes"], errors="coerce").isna().all():
        return None
    opt_rows = g[g.apply(optimal_by_construction, axis=1)]
    if opt_rows.empty:
        return None
    totals = [["config", "n", "solved optimally", "total s", "reference total s", "time ratio",
               "nodes", "reference nodes", "nodes ratio", "nodes/s"]]
    per = [["config", "instance", "optimal", "length", "nodes", "reference nodes", "s",
            "reference s"]]
    for cfg, c in opt_rows.groupby("config", sort=False):
        c = with_all_columns(c)
        t = _num(c["time_s"])
        rt = _num(c["solver_s"])
        nodes = _num(c["nodes_generated"])
        rn = _num(c["solver_nodes"])
        ok = (c["status"] == "solved").to_numpy() & (
            pd.to_numeric(c["length"], errors="coerce") == pd.to_numeric(c["optimal"],
                                                                       errors="coerce")).to_numpy()
        totals.append([str(cfg), _fmt(len(c)), f"{int(ok.sum())}/{len(c)}",
                       _fmt(float(np.nansum(t)), 1), _fmt(float(np.nansum(rt)), 1),
                       _fmt(float(np.nansum(t) / np.nansum(rt)), 3),
                       f"{np.nansum(nodes):,.0f}", f"{np.nansum(rn):,.0f}",
                       _fmt(float(np.nansum(nodes) / np.nansum(rn)), 3),
                       f"{np.nansum(nodes) / np.nansum(t):,.0f}"])
        for (_, r), tt, rr, nn, rnn in zip(c.iterrows(), t, rt, nodes, rn, strict=True):
            per.append([str(cfg), str(r["instance"]), _int(r["optimal"]),
                        _int(r["length"]) if r["status"] == "solved" else str(r["status"]),
                        f"{nn:,.0f}", f"{rnn:,.0f}", _fmt(float(tt), 1), _fmt(float(rr), 1)])
    return totals, per


def _int(v: Any) -> str:
    x = pd.to_numeric(v, errors="coerce")
    return "n/a" if pd.isna(x) else f"{int(x):,}"


def aggregates_note(puzzle: str) -> str:
    """Published % optimal on a puzzle's whole test set, as stated (not per instance)."""
    from bench.published import AGGREGATES

    found = [a for a in AGGREGATES if a.puzzle == puzzle]
    if not found:
        return ""
    return ("Published shares of optimal solutions on DeepCubeA's whole test set, as stated "
            "(not per instance, so not on these instances only): "
            + "; ".join(f"{a.optimal_pct:g}% ({a.source}: {a.setting})" for a in found) + ".")


def set_sections(df: pd.DataFrame, seed: int = 0
                 ) -> list[tuple[str, pd.DataFrame, pd.DataFrame, Any]]:
    """Per instance set of ``df`` (after ``with_reference_optima``): its name, its rows, the
    summary of every configuration on it, and the comparison on its commonly solved instances
    (None for one configuration). A mean across sets of different difficulty says nothing, so
    summaries never mix sets."""
    from bench.heuristic_cost import with_heuristic_costs

    df = with_heuristic_costs(df)
    out = []
    for set_name, g in df.groupby("instance_set", sort=False):
        comp = compare(g, seed=seed) if g["config"].nunique() > 1 else None
        out.append((str(set_name), g, summarize(g, seed=seed), comp))
    return out


def report_markdown(df: pd.DataFrame, title: str = "", seed: int = 0) -> str:
    """The run's summary per instance set, each set's commonly-solved comparison and the
    published solvers on the same instances, as one markdown document (``df``: a run's rows, or
    the frame ``with_reference_optima`` already returned)."""
    parts = [f"# {title}" if title else "# Results", ""]
    df = with_reference_optima(df)
    sets = ", ".join(f"{k} ({v})" for k, v in df.groupby("instance_set", sort=False)["instance"]
                     .nunique().items())
    parts += [f"Instance sets: {sets}. Rows: {len(df)}.", ""]
    shown: list[columns.Column] = []
    for set_name, g, summ, comp in set_sections(df, seed):
        shown += [c for c in columns.shown_columns(summ) if c not in shown]
        parts += [f"## {set_name} ({g['instance'].nunique()} instances)", "",
                  markdown_table(display_table(summ)), ""]
        if comp is not None:
            n_common = int(comp["n"].max()) if len(comp) else 0
            parts += [f"### {set_name}: the {n_common} instances solved by every configuration "
                      "(that solved any)", "",
                      markdown_table(display_table(comp, comparison=True)), ""]
            gone = left_out_note(comp)
            if gone:
                parts += [gone, ""]
        pub = published_table(g)
        if pub is not None:
            parts += [f"### {set_name}: published solvers on the same instances", "",
                      markdown_table(pub), ""]
            note = aggregates_note(str(g["puzzle"].iat[0])) if "puzzle" in g else ""
            if note:
                parts += [note, ""]
        ref = solver_tables(g)
        if ref is not None:
            totals, per = ref
            parts += [f"### {set_name}: the optimal solver that made the references, on the same "
                      "instances", "", "Its nodes and seconds as published (DeepCubeA's test set: "
                      "its PDB or cube solver, on its own machine); ours measured here.", "",
                      markdown_table(totals), "", markdown_table(per), ""]
    fails = df[df["status"] != "solved"]
    if len(fails):
        parts += ["## Failures", ""]
        for (cfg, status), g in fails.groupby(["config", "status"], sort=False):
            ids = ", ".join(f"{a}/{b}" for a, b in zip(g["instance_set"], g["instance"], strict=True))
            parts.append(f"- {cfg}: {status} ({len(g)}): {ids}")
        parts.append("")
    for note in (reference_note(df), optimality_note(df), bounds_note(df), machines_note(df),
                 revision_note(df)):
        if note:
            parts += [note, ""]
    parts += ["Columns:", ""]
    ordered = [c for c in columns.SUMMARY if c in shown]
    parts += [f"- {line}" for line in columns.legend(ordered).splitlines()]
    parts += ["", "The reference optimum comes from the instance set (DeepCubeA's optimal "
              "solutions, replayed; an instance file; an exact rule), else from an "
              "optimal-by-construction configuration of this run (IDA* or A* with an admissible "
              "heuristic, GF(2)); n/a = nothing to count over. The comparison on the instances "
              "solved by every configuration shows figures of those instances only."]
    return "\n".join(parts) + "\n"
