"""Figures that compare the configurations of a run per instance set, as readers of planning and
search benchmarks expect them (Fast Downward's Lab, rliable, DeepCubeA's Figure 2): per-instance
scatter plots of two configurations, coverage against time, results by optimal depth, and the
length excess with the unsolved runs marked. Each function takes a run's rows (after
``report.with_reference_optima``) and returns ``(fig, axes)``; instance sets are never pooled."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from bench.columns import numbers, solved_mask  # noqa: E402

METRICS = (("nodes_generated", "nodes generated", True), ("time_s", "seconds", True),
           ("length", "solution length", False))
#: at most this many (instance set, pair) rows in the scatter figure
MAX_SCATTER_ROWS = 12
#: seconds below which a search time is drawn at this floor on a log axis
TIME_FLOOR = 1e-4


def _sets(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    if df.empty or "instance_set" not in df:
        return []
    return [(str(k), g) for k, g in df.groupby("instance_set", sort=False)]


def _configs(df: pd.DataFrame) -> list[str]:
    return [str(c) for c in dict.fromkeys(df["config"])] if "config" in df else []


def _colors(configs: list[str]) -> dict[str, Any]:
    return dict(zip(configs, sns.color_palette(n_colors=max(1, len(configs))), strict=False))


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="dimgrey",
            fontsize=8)


def scatter_pairs(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    """``(instance set, x configuration, y configuration)`` of the scatter figure: on each set,
    its first configuration against each other one (at most ``MAX_SCATTER_ROWS`` in all)."""
    out = []
    for name, g in _sets(df):
        configs = _configs(g)
        out += [(name, configs[0], c) for c in configs[1:]]
    return out[:MAX_SCATTER_ROWS]


def fig_scatter(df: pd.DataFrame) -> tuple[Any, Any]:
    """One dot per instance: a metric of one configuration (x) against another's (y), with the
    diagonal; nodes and seconds on log axes. An instance one of the two did not solve is drawn
    on the "unsolved" line beyond the largest value (a red cross), as Lab does."""
    pairs = scatter_pairs(df)
    rows = max(1, len(pairs))
    fig, axes = plt.subplots(rows, len(METRICS), figsize=(4.0 * len(METRICS), 3.8 * rows),
                             squeeze=False)
    if not pairs:
        _empty(axes[0][0], "one configuration per instance set: nothing to pair")
    for r, (set_name, a, b) in enumerate(pairs):
        g = df[df["instance_set"].astype(str) == set_name]
        for ax, (metric, label, log) in zip(axes[r], METRICS, strict=True):
            x, y = _paired(g, a, b, metric)
            ok = ~np.isnan(x) & ~np.isnan(y)
            values = np.concatenate([x[~np.isnan(x)], y[~np.isnan(y)]])
            if log:
                values = np.maximum(values, TIME_FLOOR)
            if not len(values):
                _empty(ax, "neither solved an instance")
                ax.set_title(f"{set_name}: {label}", fontsize=9)
                continue
            lo, hi = float(values.min()), float(values.max())
            top = hi * 3 if log else hi + max(2.0, 0.1 * hi)
            xs = np.where(np.isnan(x), top, np.maximum(x, TIME_FLOOR) if log else x)
            ys = np.where(np.isnan(y), top, np.maximum(y, TIME_FLOOR) if log else y)
            ax.scatter(xs[ok], ys[ok], s=12, alpha=0.7)
            failed = ~ok & ~(np.isnan(x) & np.isnan(y))
            if failed.any():
                ax.scatter(xs[failed], ys[failed], s=24, marker="x", color="tab:red",
                           label="unsolved by one")
                ax.legend(fontsize=7, loc="lower right")
            ax.plot([lo, top], [lo, top], color="grey", lw=0.8)
            for line in (ax.axvline, ax.axhline):
                line(top, color="tab:red", lw=0.6, ls=":")
            if log:
                ax.set_xscale("log")
                ax.set_yscale("log")
                for axis in (ax.xaxis, ax.yaxis):
                    axis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(f"{a}: {label}", fontsize=8)
            ax.set_ylabel(f"{b}: {label}", fontsize=8)
            ax.set_title(f"{set_name}: {label} (dotted: unsolved)", fontsize=9)
    fig.tight_layout()
    return fig, axes


def _paired(g: pd.DataFrame, a: str, b: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """``metric`` of configurations ``a`` and ``b`` on every instance either ran, NaN where
    one did not solve it (aligned by instance)."""
    def values(c: str) -> pd.Series:
        rows = g[g["config"].astype(str) == c]
        v = pd.Series(numbers(rows, metric), index=rows["instance"].astype(str).to_numpy())
        v[~solved_mask(rows)] = np.nan
        return v[~v.index.duplicated()]

    va, vb = values(a), values(b)
    index = va.index.union(vb.index)
    return (va.reindex(index).to_numpy(dtype=float), vb.reindex(index).to_numpy(dtype=float))


def coverage_curve(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Coverage of one configuration's rows: the sorted search seconds of its solved instances
    and how many it solved within each (``(t, count)``, both ``(k,)``)."""
    t = np.sort(numbers(rows, "time_s")[solved_mask(rows)])
    t = np.maximum(t[~np.isnan(t)], TIME_FLOOR)
    return t, np.arange(1, len(t) + 1)


def fig_coverage(df: pd.DataFrame) -> tuple[Any, Any]:
    """Per instance set: how many instances each configuration solved within t seconds (a step
    per solved instance, log time axis), beside the number of instances."""
    sets = _sets(df)
    fig, axes = plt.subplots(1, max(1, len(sets)), figsize=(5.2 * max(1, len(sets)), 4.0),
                             squeeze=False)
    colors = _colors(_configs(df))
    if not sets:
        _empty(axes[0][0], "no rows")
    for ax, (name, g) in zip(axes[0], sets, strict=False):
        total = g["instance"].nunique()
        curves = {c: coverage_curve(g[g["config"].astype(str) == c]) for c in _configs(g)}
        t_end = max([float(t[-1]) for t, _ in curves.values() if len(t)] + [TIME_FLOOR]) * 1.5
        for config, (t, count) in curves.items():
            if len(t):  # held flat to the right edge after the last solved instance
                ax.step(np.concatenate([[t[0]], t, [t_end]]),
                        np.concatenate([[0], count, [count[-1]]]), where="post",
                        color=colors[config], label=f"{config} ({len(t)}/{total})")
            else:
                ax.plot([], [], color=colors[config], label=f"{config} (0/{total})")
        ax.axhline(total, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xlim(TIME_FLOOR if t_end <= TIME_FLOOR * 1.5 else None, t_end)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, total * 1.05 + 0.5)
        if not any(len(t) for t, _ in curves.values()):
            _empty(ax, "no configuration solved an instance")
        ax.set_xlabel("seconds (log)")
        ax.set_ylabel("instances solved within t")
        ax.set_title(f"{name}: coverage ({total} instances)", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig, axes[0]


def by_depth(rows: pd.DataFrame) -> pd.DataFrame:
    """One configuration's rows grouped by reference optimal length: per depth the instances,
    those solved, and the mean length, seconds and nodes of the solved ones."""
    opt = numbers(rows, "optimal")
    ok = solved_mask(rows)
    d = pd.DataFrame({"depth": opt, "solved": ok, "length": np.where(ok, numbers(rows, "length"),
                                                                     np.nan),
                      "time_s": np.where(ok, numbers(rows, "time_s"), np.nan),
                      "nodes_generated": np.where(ok, numbers(rows, "nodes_generated"), np.nan)})
    d = d[d["depth"].notna()]
    out = d.groupby("depth").agg(instances=("solved", "size"), solved=("solved", "sum"),
                                 length=("length", "mean"), time_s=("time_s", "mean"),
                                 nodes_generated=("nodes_generated", "mean"))
    return out.reset_index()


def fig_by_depth(df: pd.DataFrame) -> tuple[Any, Any]:
    """DeepCubeA's Figure 2 layout per instance set with reference optima: the mean solution
    length, seconds and nodes of each configuration's solved instances against their optimal
    length (the diagonal on the length panel: optimal)."""
    sets = [(n, g) for n, g in _sets(df) if (~np.isnan(numbers(g, "optimal"))).any()]
    panels = (("length", "mean solution length", False), ("time_s", "mean seconds", True),
              ("nodes_generated", "mean nodes generated", True))
    fig, axes = plt.subplots(max(1, len(sets)), len(panels),
                             figsize=(4.2 * len(panels), 3.6 * max(1, len(sets))), squeeze=False)
    colors = _colors(_configs(df))
    if not sets:
        _empty(axes[0][0], "no instance with a reference optimum")
    for r, (name, g) in enumerate(sets):
        top = 0.0
        for config in _configs(g):
            d = by_depth(g[g["config"].astype(str) == config])
            d = d[d["solved"] > 0]
            for ax, (col, _, _) in zip(axes[r], panels, strict=True):
                ax.plot(d["depth"], d[col], marker="o", ms=3, color=colors[config], label=config)
            if len(d):
                top = max(top, float(d["depth"].max()))
        for ax, (_, label, log) in zip(axes[r], panels, strict=True):
            ax.set_xlabel("optimal length")
            ax.set_ylabel(label)
            ax.set_title(f"{name}: {label} by optimal length", fontsize=9)
            ys = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
            if log and any(len(y) for y in ys) and all((y[~np.isnan(y)] > 0).all() for y in ys):
                ax.set_yscale("log")
        axes[r][0].plot([0, top], [0, top], color="grey", lw=0.8, ls="--", label="optimal")
        axes[r][0].legend(fontsize=7)
    fig.tight_layout()
    return fig, axes


def excess_counts(rows: pd.DataFrame) -> tuple[pd.Series, int]:
    """One configuration's rows with a reference optimum: how many were solved at each excess
    (length minus optimum) and how many were not solved."""
    opt = numbers(rows, "optimal")
    known = ~np.isnan(opt)
    ok = solved_mask(rows) & known
    excess = numbers(rows, "length")[ok] - opt[ok]
    counts = pd.Series(excess[excess >= 0].astype(int)).value_counts().sort_index()
    return counts, int((known & ~solved_mask(rows)).sum())


def fig_excess(df: pd.DataFrame) -> tuple[Any, Any]:
    """Per instance set: the instances with a reference optimum of each configuration by length
    excess over it, and at the right the ones it did not solve (hatched bar, "unsolved")."""
    sets = [(n, g) for n, g in _sets(df) if (~np.isnan(numbers(g, "optimal"))).any()]
    fig, axes = plt.subplots(1, max(1, len(sets)), figsize=(5.6 * max(1, len(sets)), 3.8),
                             squeeze=False)
    colors = _colors(_configs(df))
    if not sets:
        _empty(axes[0][0], "no instance with a reference optimum")
    for ax, (name, g) in zip(axes[0], sets, strict=False):
        configs = _configs(g)
        per = {c: excess_counts(g[g["config"].astype(str) == c]) for c in configs}
        top = max([int(cnt.index.max()) for cnt, _ in per.values() if len(cnt)] + [0])
        slot = top + 2  # the unsolved bar, one gap to the right of the largest excess
        width = 0.8 / max(1, len(configs))
        handles = []
        for k, c in enumerate(configs):
            counts, unsolved = per[c]
            shift = -0.4 + width * (k + 0.5)
            ax.bar(counts.index + shift, counts.to_numpy(), width=width, color=colors[c])
            handles.append(Patch(color=colors[c], label=f"{c} (unsolved {unsolved})"))
            if unsolved:
                ax.bar([slot + shift], [unsolved], width=width, color=colors[c], hatch="//",
                       edgecolor="black", lw=0.5)
        ax.set_xticks(list(range(top + 1)) + [slot])
        ax.set_xticklabels([str(i) for i in range(top + 1)] + ["unsolved"], fontsize=7)
        ax.set_xlim(-0.6, slot + 0.6)
        ax.set_xlabel("length - optimal")
        ax.set_ylabel("instances")
        ax.set_title(f"{name} ({g['instance'].nunique()} instances)", fontsize=9)
        ax.legend(handles=handles, fontsize=7)
    fig.tight_layout()
    return fig, axes[0]
