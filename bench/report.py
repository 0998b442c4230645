"""Aggregates over a run's tidy table (pure functions of a DataFrame).

``summarize(df)``: one row per configuration over all its instances: solved %, failures by
name, mean and median length, % optimal, mean excess over optimal, mean and median nodes
generated, mean time, nodes per second, peak memory, heuristic memory; bootstrap 95%
confidence intervals on the means.

``compare(df)``: the same on the instances *every* compared configuration solved (Fast
Downward Lab's rule), so that means are comparable; failures are listed by name beside it.

% optimal and excess are over solved instances with a known reference optimum; where no
instance has one they are NaN and print as ``n/a``, never guessed. ``with_reference_optima(df)``
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

from bench.report_optima import (
    bounds_note,
    optimal_by_construction,
    reference_note,
    with_all_columns,
    with_reference_optima,
)

#: the means that get bootstrap confidence intervals
CI_COLUMNS = {"length": "mean_length", "excess": "mean_excess", "nodes_generated": "mean_nodes",
              "time_s": "mean_time_s"}


def bootstrap_ci(values: Sequence[float] | np.ndarray, level: float = 0.95, n_boot: int = 2000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` ``(n,)``; NaN for no values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return (math.nan, math.nan)
    if len(x) == 1 or np.all(x == x[0]):
        return (float(x[0]), float(x[0])) if len(x) else (math.nan, math.nan)
    x = np.sort(x)  # the interval depends on the values, not on the order rows finished
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_boot, len(x)))
    means = x[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return (float(lo), float(hi))


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
    g = with_all_columns(g)
    n = len(g)
    solved = g[g["status"] == "solved"]
    length = _num(solved["length"])
    nodes = _num(solved["nodes_generated"])
    times = _num(solved["time_s"])
    opt = _num(solved["optimal"]) if "optimal" in solved else np.full(len(solved), np.nan)
    known = ~np.isnan(opt)
    excess = length[known] - opt[known]
    # % optimal counts every instance with a reference: an unsolved one is not optimal
    n_reference = int(pd.to_numeric(g["optimal"], errors="coerce").notna().sum())
    n_optimal = int((excess == 0).sum())
    all_bounds = _num(g["lower_bound"]) if "lower_bound" in g else np.full(n, np.nan)
    bound = all_bounds[(g["status"] == "solved").to_numpy()]
    bounded = ~np.isnan(bound)
    fails = g.loc[g["status"] != "solved", "status"].value_counts()
    total_time = float(np.nansum(times))
    out: dict[str, Any] = {
        "n": n,
        "solved": len(solved),
        "solved_pct": 100.0 * len(solved) / n if n else math.nan,
        "failures": ", ".join(f"{k} {v}" for k, v in fails.items()) or "-",
        "mean_length": float(np.mean(length)) if len(length) else math.nan,
        "median_length": float(np.median(length)) if len(length) else math.nan,
        "n_optimal_known": int(known.sum()),
        "n_reference": n_reference,
        "n_optimal": n_optimal,
        "optimal_pct": 100.0 * n_optimal / n_reference if n_reference else math.nan,
        "mean_excess": float(np.mean(excess)) if known.any() else math.nan,
        "mean_nodes": float(np.mean(nodes)) if len(nodes) else math.nan,
        "median_nodes": float(np.median(nodes)) if len(nodes) else math.nan,
        "mean_time_s": float(np.mean(times)) if len(times) else math.nan,
        "nodes_per_s": float(np.nansum(nodes) / total_time) if total_time > 0 else math.nan,
        "peak_rss_mb": float(np.nanmax(_num(g["peak_rss_bytes"]))) / 2**20
        if "peak_rss_bytes" in g and g["peak_rss_bytes"].notna().any() else math.nan,
        "heuristic_mb": float(np.nanmax(_num(g["heuristic_nbytes"]))) / 2**20
        if "heuristic_nbytes" in g and g["heuristic_nbytes"].notna().any() else math.nan,
        "solver_mb": float(np.nanmax(_num(g["solver_nbytes"]))) / 2**20
        if "solver_nbytes" in g and g["solver_nbytes"].notna().any() else math.nan,
    }
    if (~np.isnan(all_bounds)).any():
        # a length equal to a certified lower bound is proven optimal, whatever the reference
        n_bounded = int((~np.isnan(all_bounds)).sum())
        out["n_bounded"] = n_bounded
        out["n_proven"] = int((length[bounded] == bound[bounded]).sum())
        out["proven_pct"] = 100.0 * out["n_proven"] / n_bounded
        out["mean_gap"] = float(np.mean(length[bounded] - bound[bounded])) if bounded.any() \
            else math.nan
    if "published_length" in solved:
        pub = _num(solved["published_length"])
        has = ~np.isnan(pub)
        out["n_published"] = int(has.sum())
        out["mean_vs_published"] = float(np.mean(length[has] - pub[has])) if has.any() else math.nan
    if ci:
        for values, col in ((length, "mean_length"), (excess, "mean_excess"),
                            (nodes, "mean_nodes"), (times, "mean_time_s")):
            lo, hi = bootstrap_ci(values, seed=seed)
            out[col + "_lo"], out[col + "_hi"] = lo, hi
    return out


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
    """``summarize`` restricted to the commonly solved instances of ``configs``.

    The ``failures`` column still counts every failure of each configuration over all instances.
    Configurations that solved no instance are listed (n = 0) but do not empty the common set.
    """
    configs = list(configs) if configs is not None else list(df[by].unique())
    # a configuration that solved nothing would empty the common set: compare the others
    active = [c for c in configs if ((df[by] == c) & (df["status"] == "solved")).any()]
    common = common_solved(df, active or configs, by)
    rows: list[dict[str, Any]] = []
    all_rows = df[df[by].isin(configs)]
    for name in configs:
        g = common[common[by] == name]
        stats: dict[str, Any] = _stats(g, ci, seed) if len(g) else {"n": 0}
        full = all_rows[all_rows[by] == name]
        fails = full.loc[full["status"] != "solved", "status"].value_counts()
        stats["failures"] = ", ".join(f"{k} {v}" for k, v in fails.items()) or "-"
        stats["n"] = len(g)
        rows.append({by: name, **stats})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- formatting
def _fmt(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, float):
        if abs(v) >= 1e5:
            return f"{v:,.0f}"
        return f"{v:,.{digits}f}"
    return str(v)


def _with_ci(row: pd.Series, col: str, digits: int) -> str:
    base = _fmt(row.get(col), digits)
    lo, hi = row.get(col + "_lo"), row.get(col + "_hi")
    if base == "n/a" or lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return base
    return f"{base} [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


DISPLAY = [
    ("solved", "solved"), ("solved_pct", "solved %"), ("failures", "failures"),
    ("mean_length", "mean length [95% CI]"), ("median_length", "median length"),
    ("optimal_pct", "% optimal"), ("mean_excess", "mean excess [95% CI]"),
    ("proven_pct", "% proven optimal"), ("mean_gap", "mean gap to bound"),
    ("mean_nodes", "mean nodes [95% CI]"), ("median_nodes", "median nodes"),
    ("mean_time_s", "mean time s [95% CI]"), ("nodes_per_s", "nodes/s"),
    ("peak_rss_mb", "peak MiB"), ("heuristic_mb", "heuristic MiB"),
    ("solver_mb", "solver tables MiB"), ("mean_vs_published", "length - DeepCubeA's"),
]
#: columns shown only when some row has a figure for them
OPTIONAL = {"mean_vs_published": lambda v: v.notna().any(), "solver_mb": lambda v: (v > 0).any(),
            "proven_pct": lambda v: v.notna().any(), "mean_gap": lambda v: v.notna().any()}


def _share(row: pd.Series, pct: str, k: str, n: str) -> str:
    """A percentage with its count and denominator, e.g. ``43.5 (87/200)``."""
    value, num, den = row.get(pct), row.get(k), row.get(n)
    if value is None or (isinstance(value, float) and math.isnan(value)) or den is None \
            or (isinstance(den, float) and math.isnan(den)):
        return "n/a"
    return f"{float(value):.1f} ({int(num)}/{int(den)})"


def display_table(summary: pd.DataFrame, by: str = "config") -> list[list[str]]:
    """Header + rows of formatted strings for a summary frame."""
    shown = [(c, label) for c, label in DISPLAY
             if c not in OPTIONAL or (c in summary and bool(OPTIONAL[c](summary[c])))]
    header = [by, "n"] + [label for _, label in shown]
    out = [header]
    for _, row in summary.iterrows():
        cells = [str(row[by]), _fmt(row.get("n"))]
        for col, _ in shown:
            if col == "optimal_pct":
                cells.append(_share(row, col, "n_optimal", "n_reference"))
            elif col == "proven_pct":
                cells.append(_share(row, col, "n_proven", "n_bounded"))
            elif col in CI_COLUMNS.values():
                digits = 0 if col == "mean_nodes" else (3 if col == "mean_time_s" else 2)
                cells.append(_with_ci(row, col, digits))
            elif col in ("median_nodes", "nodes_per_s"):
                cells.append(_fmt(row.get(col), 0))
            elif col in ("mean_time_s",):
                cells.append(_fmt(row.get(col), 3))
            else:
                cells.append(_fmt(row.get(col), 1 if col.endswith(("pct", "mb")) else 2))
        out.append(cells)
    return out


#: the columns printed in the terminal (the markdown report has them all)
TERMINAL = ("config", "n", "solved %", "failures", "mean length [95% CI]", "% optimal",
            "mean excess [95% CI]", "% proven optimal", "mean gap to bound",
            "mean nodes [95% CI]", "mean time s [95% CI]", "nodes/s", "peak MiB")


def terminal_table(table: list[list[str]]) -> list[list[str]]:
    """The subset of ``display_table`` columns that fits a terminal."""
    keep = [i for i, h in enumerate(table[0]) if h in TERMINAL or i == 0]
    return [[row[i] for i in keep] for row in table]


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
    header = ["published", "search", "n", "solved", "mean length", "% optimal", "mean excess"]
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
                     f"{100.0 * k / n_ref:.1f} ({k}/{n_ref})" if n_ref else "n/a",
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
    for set_name, g, summ, comp in set_sections(df, seed):
        parts += [f"## {set_name} ({g['instance'].nunique()} instances)", "",
                  markdown_table(display_table(summ)), ""]
        if comp is not None:
            n_common = int(comp["n"].max()) if len(comp) else 0
            parts += [f"### {set_name}: the {n_common} instances solved by every configuration "
                      "(that solved any)", "", markdown_table(display_table(comp)), ""]
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
    for note in (reference_note(df), bounds_note(df), machines_note(df), revision_note(df)):
        if note:
            parts += [note, ""]
    parts.append("% optimal counts every instance with a known optimal length, solved or not (an "
                 "unsolved instance is not optimal), and shows that count; the reference comes "
                 "from the instance set (DeepCubeA's optimal solutions, replayed; an instance file; "
                 "an exact rule), else from an optimal-by-construction configuration of this run "
                 "(IDA* or A* with an admissible heuristic, GF(2)); mean excess counts the solved "
                 "ones; n/a = no reference optimum known. % proven optimal: solutions whose "
                 "length equals the certified lower bound (the strongest admissible heuristic "
                 "at the start state), and the mean gap of the solved ones to that bound. Means "
                 "carry 95% bootstrap intervals. \"length - DeepCubeA's\" is the mean difference "
                 "to DeepCubeA's published solution lengths on the same instances, where those "
                 "are known.")
    return "\n".join(parts) + "\n"
