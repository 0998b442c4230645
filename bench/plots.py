"""Figures of a run's table. Each function takes a DataFrame and returns ``(fig, ax)``
(``ax`` may be an array of axes); only the CLI writes files."""

from __future__ import annotations

import json
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from bench import compare_plots  # noqa: E402

METRIC_LABELS = {"length": "solution length", "nodes_generated": "nodes generated",
                 "time_s": "time (s)", "excess": "length - optimal"}


def with_params(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` plus one column per configuration parameter (``weight``, ``batch``, ...)."""
    out = df.copy()
    params = out["params"].map(lambda s: json.loads(s) if isinstance(s, str) and s else {})
    keys = sorted({k for p in params for k in p})
    for k in keys:
        out[k.split(".", 1)[-1]] = params.map(lambda p, k=k: p.get(k))
    return out


def solved(df: pd.DataFrame) -> pd.DataFrame:
    from bench.report_optima import with_all_columns

    df = with_all_columns(df)
    out = df[df["status"] == "solved"].copy()
    for col in ("length", "nodes_generated", "optimal", "time_s"):
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    return out


def heuristic_labels(df: pd.DataFrame) -> pd.Series:
    """Each row's heuristic as figures name it (``core.labels.heuristic_label``): its entry
    name, and for a network what it was trained on (``value-net (diffusion)``), so a legend
    says what the network is."""
    from core.labels import heuristic_label

    heuristic = df["heuristic"] if "heuristic" in df else pd.Series("", index=df.index)
    target = df["model_target"] if "model_target" in df else pd.Series(None, index=df.index)
    return pd.Series([heuristic_label(str(h), t if isinstance(t, str) else None)
                      for h, t in zip(heuristic, target, strict=True)], index=df.index)


def with_weights(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``df`` whose solver takes a weight on g (lambda: BWAS, A*, greedy), with
    ``weight`` the configuration's, or its solver's declared default where the configuration
    leaves it out (so every lambda run is shown, the default one too)."""
    from core import registry

    d = with_params(df)
    defaults: dict[str, float] = {}
    for name in d["solver"].dropna().unique() if "solver" in d else ():
        try:
            option = registry.solver_entry(str(name)).option("weight")
        except Exception:  # a solver no longer declared: its rows have no lambda to show
            continue
        if option is not None and option.default is not None:
            defaults[str(name)] = float(option.default)
    if "solver" not in d:
        return d.iloc[:0].assign(weight=pd.Series(dtype=float))
    d = d[d["solver"].astype(str).isin(defaults)]
    given = pd.to_numeric(d["weight"], errors="coerce") if "weight" in d else \
        pd.Series(np.nan, index=d.index)
    return d.assign(weight=given.fillna(d["solver"].astype(str).map(defaults)).astype(float))


def fig_bwas_strips(df: pd.DataFrame, x: str = "weight", hue: str = "heuristic",
                    metrics: tuple[str, ...] = ("length", "nodes_generated", "time_s")
                    ) -> tuple[Any, Any]:
    """DeepCubeA's Figure 2 layout: one panel per metric, one dot per solved state,
    ``x`` = the weight lambda of every weighted configuration (a default one too), colour =
    heuristic; one row of panels per instance set."""
    d = solved(with_weights(df) if x == "weight" else with_params(df))
    if hue == "heuristic" and len(d):
        d = d.assign(heuristic=heuristic_labels(d))
    if x not in d:
        d[x] = d["config"]
    sets = list(dict.fromkeys(d["instance_set"])) if len(d) else [""]
    fig, axes = plt.subplots(len(sets), len(metrics),
                             figsize=(4.2 * len(metrics), 3.8 * len(sets)), squeeze=False)
    order = sorted(d[x].dropna().unique()) if len(d) else []
    for r, set_name in enumerate(sets):
        ds = d[d["instance_set"] == set_name] if len(d) else d
        for ax, m in zip(axes[r], metrics, strict=True):
            if len(ds):
                sns.stripplot(data=ds, x=x, y=m, hue=hue, dodge=True, size=3, alpha=0.6, ax=ax,
                              order=order, legend=ax is axes[r][-1])
            else:
                ax.text(0.5, 0.5, "no solved run with a weight on g", ha="center",
                        transform=ax.transAxes, color="dimgrey")
            ax.set_ylabel(METRIC_LABELS.get(m, m))
            ax.set_xlabel("λ (weight on g)" if x == "weight" else x)
            if set_name:
                ax.set_title(str(set_name), fontsize=9)
            if len(ds) and (m == "nodes_generated" or (
                    m == "time_s" and ds[m].max() > 50 * max(ds[m].min(), 1e-6))):
                ax.set_yscale("log")
    fig.tight_layout()
    return fig, axes


def fig_nodes_vs_length(df: pd.DataFrame) -> tuple[Any, Any]:
    """Nodes generated (log) against solution length, one dot per solved instance."""
    d = solved(df)
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.scatterplot(data=d, x="length", y="nodes_generated", hue="config", style="config",
                    alpha=0.7, ax=ax)
    if len(d) and (d["nodes_generated"] > 0).all():
        ax.set_yscale("log")
    ax.set_xlabel(METRIC_LABELS["length"])
    ax.set_ylabel(METRIC_LABELS["nodes_generated"])
    fig.tight_layout()
    return fig, ax


def fig_pairwise(df: pd.DataFrame, a: str, b: str, metric: str = "nodes_generated") -> tuple[Any, Any]:
    """One dot per instance both configurations solved: ``metric`` of ``a`` (x) against ``b`` (y)."""
    d = solved(df)
    wide = d.pivot_table(index=["instance_set", "instance"], columns="config", values=metric,
                         aggfunc="first")
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    if a in wide and b in wide:
        w = wide[[a, b]].dropna()
        ax.scatter(w[a], w[b], s=10, alpha=0.7)
        lo = float(np.nanmin(w.to_numpy())) if len(w) else 0.0
        hi = float(np.nanmax(w.to_numpy())) if len(w) else 1.0
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8)
        if metric in ("nodes_generated", "time_s") and lo > 0:
            ax.set_xscale("log")
            ax.set_yscale("log")
    ax.set_xlabel(f"{a}: {METRIC_LABELS.get(metric, metric)}")
    ax.set_ylabel(f"{b}: {METRIC_LABELS.get(metric, metric)}")
    fig.tight_layout()
    return fig, ax


def fig_quality(df: pd.DataFrame) -> tuple[Any, Any]:
    """Heuristic value against true distance: mean h per distance, with the diagonal."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    sns.lineplot(data=df, x="distance", y="h", hue="heuristic", errorbar=("pi", 90), ax=ax)
    top = float(df["distance"].max()) if len(df) else 1.0
    ax.plot([0, top], [0, top], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("true distance")
    ax.set_ylabel("h (mean, 90% of states shaded)")
    fig.tight_layout()
    return fig, ax


def fig_training(log: pd.DataFrame, depth_log: pd.DataFrame | None = None) -> tuple[Any, Any]:
    """A DAVI training run: every numeric column of ``log.csv`` against its first column, and
    from ``depth_log.csv`` the per-depth columns of the last logged step."""
    xcol = log.columns[0]
    ycols = [c for c in log.columns[1:] if pd.api.types.is_numeric_dtype(log[c])]
    extra = []
    if depth_log is not None and len(depth_log):
        dcol = "depth" if "depth" in depth_log else depth_log.columns[1]
        step_col = depth_log.columns[0] if depth_log.columns[0] != dcol else None
        last = depth_log[depth_log[step_col] == depth_log[step_col].max()] if step_col else depth_log
        extra = [(dcol, c, last) for c in depth_log.columns
                 if c not in (dcol, step_col) and pd.api.types.is_numeric_dtype(depth_log[c])]
    n = max(1, len(ycols) + len(extra))
    cols = min(3, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    flat = axes.ravel()
    for ax, c in zip(flat, ycols, strict=False):
        sns.lineplot(data=log, x=xcol, y=c, ax=ax)
        if c.lower().startswith("loss") and (log[c] > 0).all():
            ax.set_yscale("log")
    for ax, (dcol, c, last) in zip(flat[len(ycols):], extra, strict=False):
        sns.lineplot(data=last, x=dcol, y=c, marker="o", ax=ax)
        ax.set_title(f"{c} by {dcol} (last step)")
    for ax in flat[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig, axes



def fig_length_vs_time(points: pd.DataFrame,
                       levels: pd.DataFrame | None = None) -> tuple[Any, Any]:
    """Mean solution length against mean seconds per instance (log), one panel per puzzle, one
    line per guide through its beam widths (each point labelled with its width), a cross per
    BWAS configuration, a diamond per optimal solver. ``points``: columns ``puzzle``, ``guide``,
    ``kind`` (``beam``, ``bwas``, or another solver), ``width``, ``mean_length``,
    ``mean_time_s``. ``levels``: mean lengths without a time (``puzzle``, ``label``,
    ``mean_length``), drawn as dotted horizontal lines."""
    puzzles = list(dict.fromkeys(points["puzzle"])) if len(points) else []
    fig, axes = plt.subplots(1, max(1, len(puzzles)), figsize=(5.2 * max(1, len(puzzles)), 4.2),
                             squeeze=False)
    guides = list(dict.fromkeys(points["guide"])) if len(points) else []
    colors = dict(zip(guides, sns.color_palette(n_colors=max(1, len(guides))), strict=False))
    for ax, puzzle in zip(axes[0], puzzles, strict=False):
        d = points[(points["puzzle"] == puzzle) & points["mean_length"].notna()
                   & points["mean_time_s"].notna()]
        for guide, g in d.groupby("guide", sort=False):
            beam = g[g["kind"] == "beam"].sort_values("width")
            if len(beam):
                ax.plot(beam["mean_time_s"], beam["mean_length"], marker="o", ms=4,
                        color=colors[guide], label=f"{guide}, beam")
                for x, y, w in zip(beam["mean_time_s"], beam["mean_length"], beam["width"],
                                   strict=True):
                    ax.annotate(f"{int(w):,}", (x, y), fontsize=6, xytext=(3, 3),
                                textcoords="offset points", color=colors[guide])
            for kind, marker in (("bwas", "X"), ("other", "D")):
                pts = g[g["kind"] == kind] if kind == "bwas" else g[~g["kind"].isin(["beam", "bwas"])]
                if len(pts):
                    ax.scatter(pts["mean_time_s"], pts["mean_length"], marker=marker, s=40,
                               color=colors[guide],
                               label=f"{guide}, BWAS" if kind == "bwas" else str(guide))
        if levels is not None and len(levels):
            for _, row in levels[levels["puzzle"] == puzzle].iterrows():
                ax.axhline(float(row["mean_length"]), color="grey", ls=":", lw=1)
                ax.annotate(str(row["label"]), (0.01, float(row["mean_length"])), fontsize=6,
                            xycoords=("axes fraction", "data"), xytext=(0, 2),
                            textcoords="offset points", color="dimgrey")
        if len(d) and (d["mean_time_s"] > 0).all():
            from matplotlib.ticker import NullFormatter

            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # decades only: no crowded labels
        ax.set_title(puzzle)
        ax.set_xlabel("mean seconds per solved instance")
        ax.set_ylabel("mean solution length")
        if len(d):
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no configuration solved a state", ha="center",
                    transform=ax.transAxes, color="dimgrey")
    fig.tight_layout()
    return fig, axes[0]


FIGURES = {
    "bwas-strips": fig_bwas_strips,
    "excess": compare_plots.fig_excess,
    "nodes-vs-length": fig_nodes_vs_length,
    "scatter": compare_plots.fig_scatter,
    "coverage": compare_plots.fig_coverage,
    "by-depth": compare_plots.fig_by_depth,
}
#: the figures every report makes, whatever else its suite asks for
ALWAYS = ("scatter", "coverage", "by-depth", "excess")


def report_figures(chosen: list[str] | tuple[str, ...]) -> list[str] | None:
    """The figures the report of a suite run makes: the suite's ``chosen`` ones and ``ALWAYS``
    (None: every figure, for a suite that chooses none)."""
    return list(dict.fromkeys([*chosen, *ALWAYS])) if chosen else None


def _absent_note(df: pd.DataFrame, name: str) -> str:
    """Which configurations a figure cannot show (nothing solved, no known optimum, no weight
    on g)."""
    if name in ("scatter", "coverage"):
        return ""  # every configuration is drawn, its unsolved instances marked
    d = with_weights(df) if name == "bwas-strips" else df
    if name in ("excess", "by-depth"):
        d = d[pd.to_numeric(d["optimal"], errors="coerce").notna()] if "optimal" in d \
            else d.iloc[:0]
    if name != "excess":
        d = solved(d)
    shown = set(d["config"]) if "config" in d else set()
    absent = [c for c in dict.fromkeys(df["config"]) if c not in shown] if "config" in df else []
    if not absent:
        return ""
    why = {"excess": "no instance with a known optimum",
           "by-depth": "nothing solved with a known optimum",
           "bwas-strips": "no weight on g, or nothing solved"}.get(name, "nothing solved")
    return f"not shown ({why}): {', '.join(map(str, absent))}"


def run_figures(df: pd.DataFrame, names: list[str] | tuple[str, ...] | None = None,
                title: str = "") -> dict[str, Any]:
    """``{name: fig}`` for the named standard figures of a suite run (all by default), titled
    ``title`` (suite and profile), with a note naming the configurations a figure cannot show."""
    unknown = [n for n in names or () if n not in FIGURES]
    if unknown:
        from core.errors import InputError

        raise InputError(f"--figures: unknown figure {unknown[0]!r}; known: {', '.join(FIGURES)}")
    out = {}
    for name in names or FIGURES:
        fig, _ = FIGURES[name](df)
        note = _absent_note(df, name)
        if title:
            fig.suptitle(title, fontsize=10)
        if note:
            fig.text(0.01, 0.005, note, fontsize=7, color="dimgrey", va="bottom")
        if title or note:
            height = float(fig.get_figheight())  # inches: room for the title and the note
            fig.tight_layout(rect=(0, 0.3 / height if note else 0, 1,
                                   1 - 0.22 / height if title else 1))
        out[name] = fig
    return out
