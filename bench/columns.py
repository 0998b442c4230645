"""Every column of the reports, defined once: its aggregate (a pure function of one
configuration's rows on one instance set), its label, its legend and how it is printed.

The console report, ``summary.md``, the viewer and the paper tables compose these columns, so a
column means the same in every table. The shares print with their denominator (``40.0 (2/5)``):

- **% optimal** (:func:`optimal_share`): of the instances with a reference optimal length, those
  solved at that length; an unsolved instance counts as not optimal.
- **% at lower bound** (:func:`at_bound_share`): of the instances with a certified lower bound,
  those solved at a length equal to it (a proof of optimality that needs no reference).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

SOLVED = "solved"


# --------------------------------------------------------------------------- shares
@dataclass(frozen=True)
class Share:
    """``k`` of ``n``; its percentage is NaN where ``n`` is 0 (nothing to count over)."""

    k: int
    n: int

    @property
    def pct(self) -> float:
        return 100.0 * self.k / self.n if self.n else math.nan

    def __str__(self) -> str:
        return f"{self.pct:.1f} ({self.k}/{self.n})" if self.n else "n/a"


def numbers(rows: pd.DataFrame, col: str) -> np.ndarray:
    """Column ``col`` of ``rows`` as floats (NaN where missing or not a number)."""
    if col not in rows:
        return np.full(len(rows), np.nan)
    return pd.to_numeric(rows[col], errors="coerce").astype(float).to_numpy()


def solved_mask(rows: pd.DataFrame) -> np.ndarray:
    """Which rows were solved."""
    if "status" not in rows:
        return np.zeros(len(rows), dtype=bool)
    return (rows["status"] == SOLVED).to_numpy()


def optimal_share(rows: pd.DataFrame) -> Share:
    """% optimal: of the rows with a reference optimum (``optimal``), those solved at it; an
    unsolved row counts as not optimal."""
    opt, length = numbers(rows, "optimal"), numbers(rows, "length")
    known = ~np.isnan(opt)
    hit = known & solved_mask(rows) & (length == opt)
    return Share(int(hit.sum()), int(known.sum()))


def optimal_share_of(length: Sequence[Any] | pd.Series | np.ndarray,
                     optimal: Sequence[Any] | pd.Series | np.ndarray) -> Share:
    """:func:`optimal_share` of lengths found outside our runs (a published solver's), one per
    state, against the states' reference optima (None or NaN: no length, counted as not solved;
    no optimum, not counted)."""
    length = pd.to_numeric(pd.Series(list(length), dtype=object), errors="coerce").astype(float)
    rows = pd.DataFrame({"status": np.where(length.notna(), SOLVED, "unsolved"),
                         "length": length.to_numpy(), "optimal": list(optimal)})
    return optimal_share(rows)


def at_bound_share(rows: pd.DataFrame) -> Share:
    """% at lower bound: of the rows with a certified lower bound (``lower_bound``), those
    solved at a length equal to it (so proven optimal); an unsolved row counts as not."""
    bound, length = numbers(rows, "lower_bound"), numbers(rows, "length")
    known = ~np.isnan(bound)
    hit = known & solved_mask(rows) & (length == bound)
    return Share(int(hit.sum()), int(known.sum()))


def solved_share(rows: pd.DataFrame) -> Share:
    """Solved rows of all rows."""
    return Share(int(solved_mask(rows).sum()), len(rows))


# --------------------------------------------------------------------------- aggregates
def bootstrap_ci(values: Sequence[float] | np.ndarray, level: float = 0.95, n_boot: int = 2000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` ``(n,)``; NaN for no values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return (math.nan, math.nan)
    if len(x) == 1 or np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    x = np.sort(x)  # the interval depends on the values, not on the order rows finished
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_boot, len(x)))
    means = x[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return (float(lo), float(hi))


def _mean(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(np.mean(x)) if len(x) else math.nan


def _median(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(np.median(x)) if len(x) else math.nan


def _max_mib(rows: pd.DataFrame, col: str) -> float:
    x = numbers(rows, col)
    return float(np.nanmax(x)) / 2**20 if (~np.isnan(x)).any() else math.nan


def _solved(rows: pd.DataFrame, col: str) -> np.ndarray:
    return numbers(rows, col)[solved_mask(rows)]


def excess_values(rows: pd.DataFrame) -> np.ndarray:
    """Length minus the reference optimum of the solved rows that have one."""
    ok = solved_mask(rows)
    d = numbers(rows, "length")[ok] - numbers(rows, "optimal")[ok]
    return d[~np.isnan(d)]


def gap_values(rows: pd.DataFrame) -> np.ndarray:
    """Length minus the certified lower bound of the solved rows that have one."""
    ok = solved_mask(rows)
    d = numbers(rows, "length")[ok] - numbers(rows, "lower_bound")[ok]
    return d[~np.isnan(d)]


def failures(rows: pd.DataFrame) -> str:
    """How the unsolved rows ended, by status and count (``timeout 2, node-limit 1``)."""
    if "status" not in rows:
        return "-"
    fails = rows.loc[~solved_mask(rows), "status"].value_counts()
    return ", ".join(f"{k} {v}" for k, v in fails.items()) or "-"


def nodes_per_s(rows: pd.DataFrame) -> float:
    nodes, times = _solved(rows, "nodes_generated"), _solved(rows, "time_s")
    total = float(np.nansum(times))
    return float(np.nansum(nodes) / total) if total > 0 else math.nan


def vs_published(rows: pd.DataFrame) -> float:
    d = _solved(rows, "length") - _solved(rows, "published_length")
    return _mean(d)


# --------------------------------------------------------------------------- the column table
Aggregate = Callable[[pd.DataFrame], Any]


def _fmt(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return "n/a"
    if isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and digits < 0):
        return f"{int(round(float(v))):,}"
    if isinstance(v, (float, np.floating)):
        x = float(v)
        return f"{x:,.0f}" if abs(x) >= 1e5 else f"{x:,.{digits}f}"
    return str(v)


@dataclass(frozen=True)
class Column:
    """One column of the reports. ``aggregate(rows)``: its value over one configuration's rows
    (a pure function). ``key``: its field in a summary frame (a :class:`Share` is stored as
    ``key`` = its percentage, ``n_KEY`` and ``k_KEY`` its counts). ``digits``: decimals printed
    (-1: a whole number). ``ci``: the mean carries a 95% bootstrap interval of ``values``.
    ``optional``: shown only where some row has a figure. ``compare``: shown in the comparison on
    the commonly solved instances. ``terminal``: printed in the console."""

    key: str
    label: str
    legend: str
    aggregate: Aggregate
    digits: int = 2
    ci_values: Aggregate | None = None
    optional: bool = False
    compare: bool = True
    terminal: bool = True
    share: bool = False
    extra: Mapping[str, Aggregate] = field(default_factory=dict)

    def fields(self, rows: pd.DataFrame, ci: bool = True, seed: int = 0) -> dict[str, Any]:
        """The summary fields of this column over ``rows``."""
        value = self.aggregate(rows)
        out: dict[str, Any]
        if isinstance(value, Share):
            out = {self.key: value.pct, "k_" + self.key: value.k, "n_" + self.key: value.n}
        else:
            out = {self.key: value}
        if ci and self.ci_values is not None:
            out[self.key + "_lo"], out[self.key + "_hi"] = bootstrap_ci(self.ci_values(rows),
                                                                       seed=seed)
        for name, fn in self.extra.items():
            out[name] = fn(rows)
        return out

    def render(self, row: Mapping[str, Any]) -> str:
        """The printed cell of a summary row."""
        value = row.get(self.key)
        if self.share:
            n = row.get("n_" + self.key)
            if n is None or (isinstance(n, float) and math.isnan(n)) or not n:
                return "n/a"
            return str(Share(int(row.get("k_" + self.key) or 0), int(n)))
        base = _fmt(value, self.digits)
        if self.ci_values is None or base == "n/a":
            return base
        lo, hi = row.get(self.key + "_lo"), row.get(self.key + "_hi")
        if lo is None or (isinstance(lo, float) and math.isnan(lo)):
            return base
        return f"{base} [{_fmt(lo, self.digits)}, {_fmt(hi, self.digits)}]"

    def shown(self, summary: pd.DataFrame) -> bool:
        """Whether a summary frame shows this column."""
        if not self.optional:
            return True
        if self.key not in summary:
            return False
        v = pd.to_numeric(summary[self.key], errors="coerce")
        return bool((v.notna() & (v != 0)).any()) if self.key == "solver_mb" else \
            bool(v.notna().any())


N = Column("n", "n", "instances the row counts (in the comparison: the commonly solved ones)",
           len, digits=-1)
SOLVED_COUNT = Column("solved", "solved", "instances solved within the limits",
                      lambda r: int(solved_mask(r).sum()), digits=-1, terminal=False)
SOLVED_PCT = Column("solved_pct", "solved %", "instances solved, of all",
                    lambda r: solved_share(r).pct, digits=1, compare=False)
FAILURES = Column("failures", "failures", "how the unsolved instances ended (status and count)",
                  failures, compare=False)
MEAN_LENGTH = Column("mean_length", "mean length [95% CI]",
                     "mean solution length of the solved instances, with its 95% bootstrap "
                     "interval", lambda r: _mean(_solved(r, "length")),
                     ci_values=lambda r: _solved(r, "length"))
MEDIAN_LENGTH = Column("median_length", "median length", "median solution length",
                       lambda r: _median(_solved(r, "length")), terminal=False)
OPTIMAL = Column("optimal_pct", "% optimal",
                 "of the instances with a reference optimal length, those solved at it (an "
                 "unsolved instance is not optimal), with the count over the denominator",
                 optimal_share, share=True,
                 extra={"n_reference": lambda r: optimal_share(r).n,
                        "n_optimal": lambda r: optimal_share(r).k})
EXCESS = Column("mean_excess", "mean excess [95% CI]",
                "mean length minus the reference optimum, over the solved instances that have one",
                lambda r: _mean(excess_values(r)), ci_values=excess_values)
AT_BOUND = Column("at_bound_pct", "% at lower bound",
                  "of the instances with a certified lower bound (the strongest admissible "
                  "heuristic at the start state), those solved at a length equal to it: proven "
                  "optimal without a reference", at_bound_share, share=True, optional=True)
GAP = Column("mean_gap", "mean gap to bound",
             "mean length minus the certified lower bound, over the solved instances",
             lambda r: _mean(gap_values(r)), optional=True)
MEAN_NODES = Column("mean_nodes", "mean nodes [95% CI]",
                    "mean nodes generated over the solved instances",
                    lambda r: _mean(_solved(r, "nodes_generated")), digits=-1,
                    ci_values=lambda r: _solved(r, "nodes_generated"))
MEDIAN_NODES = Column("median_nodes", "median nodes", "median nodes generated",
                      lambda r: _median(_solved(r, "nodes_generated")), digits=-1,
                      terminal=False)
MEAN_TIME = Column("mean_time_s", "mean time s [95% CI]",
                   "mean search seconds over the solved instances",
                   lambda r: _mean(_solved(r, "time_s")), digits=3,
                   ci_values=lambda r: _solved(r, "time_s"))
NODES_PER_S = Column("nodes_per_s", "nodes/s", "nodes generated per search second (solved)",
                     nodes_per_s, digits=-1)
PEAK = Column("peak_rss_mb", "peak MiB", "the largest peak memory of a search",
              lambda r: _max_mib(r, "peak_rss_bytes"), digits=1)
HEURISTIC_MB = Column("heuristic_mb", "heuristic MiB",
                      "memory the heuristic holds (tables, weights)",
                      lambda r: _max_mib(r, "heuristic_nbytes"), digits=1, terminal=False)
SOLVER_MB = Column("solver_mb", "solver tables MiB",
                   "memory a table-driven solver's own tables hold",
                   lambda r: _max_mib(r, "solver_nbytes"), digits=1, optional=True,
                   terminal=False)
VS_PUBLISHED = Column("mean_vs_published", "length - DeepCubeA's",
                      "mean difference to DeepCubeA's published solution lengths on the same "
                      "instances", vs_published, optional=True, terminal=False,
                      extra={"n_published": lambda r: int((~np.isnan(
                          _solved(r, "published_length"))).sum())})



def _first(col: str, scale: float = 1.0) -> Aggregate:
    """The configuration's one value of a per-heuristic column (NaN where none is known)."""
    def first(rows: pd.DataFrame) -> float:
        x = numbers(rows, col)
        x = x[~np.isnan(x)]
        return float(x[0]) / scale if len(x) else math.nan
    return first


TRAIN_CPU = Column("train_cpu_s", "training CPU-s",
                   "CPU-seconds the network was trained for (its model card)",
                   _first("train_cpu_s"), digits=-1, optional=True, terminal=False)
TRAIN_STATES = Column("train_states", "training states",
                      "states the network saw in training (its model card)",
                      _first("train_states"), digits=-1, optional=True, terminal=False)
BUILD_S = Column("build_s", "build s", "seconds the pattern databases took to build (their "
                 "files' metadata)", _first("build_s"), digits=1, optional=True, terminal=False)
BUILD_PEAK = Column("build_peak_mb", "build peak MiB",
                    "peak resident memory of the process that built the pattern databases "
                    "(recorded at build time)", _first("build_peak_bytes", 2**20), digits=1,
                    optional=True, terminal=False)
TABLE_MB = Column("table_mb", "tables MiB", "bytes of the pattern-database files, in MiB",
                  _first("table_bytes", 2**20), digits=1, optional=True, terminal=False)

#: the columns of the run summaries, in their order
SUMMARY = (N, SOLVED_COUNT, SOLVED_PCT, FAILURES, MEAN_LENGTH, MEDIAN_LENGTH, OPTIMAL, EXCESS,
           AT_BOUND, GAP, MEAN_NODES, MEDIAN_NODES, MEAN_TIME, NODES_PER_S, PEAK, HEURISTIC_MB,
           SOLVER_MB, VS_PUBLISHED, TRAIN_CPU, TRAIN_STATES, BUILD_S, BUILD_PEAK, TABLE_MB)
BY_KEY = {c.key: c for c in SUMMARY}


def aggregate(rows: pd.DataFrame, columns: Sequence[Column] = SUMMARY, ci: bool = True,
              seed: int = 0) -> dict[str, Any]:
    """Every field of ``columns`` over one configuration's ``rows``."""
    out: dict[str, Any] = {}
    for c in columns:
        out.update(c.fields(rows, ci=ci, seed=seed))
    return out


def shown_columns(summary: pd.DataFrame, comparison: bool = False,
                  terminal: bool = False) -> list[Column]:
    """The columns a table of ``summary`` prints (``comparison``: on the commonly solved
    instances; ``terminal``: in the console)."""
    return [c for c in SUMMARY if c.shown(summary) and (c.compare or not comparison)
            and (c.terminal or not terminal)]


def table(summary: pd.DataFrame, by: str = "config", comparison: bool = False,
          terminal: bool = False) -> list[list[str]]:
    """Header + rows of printed cells for a summary frame."""
    cols = shown_columns(summary, comparison, terminal)
    out = [[by] + [c.label for c in cols]]
    for _, row in summary.iterrows():
        out.append([str(row[by])] + [c.render(row) for c in cols])
    return out


def legend(columns: Sequence[Column]) -> str:
    """One line per column that needs saying (the counts and the obvious ones left out)."""
    skip = {"n", "solved", "median_length", "median_nodes"}
    return "\n".join(f"{c.label}: {c.legend}." for c in columns if c.key not in skip)
