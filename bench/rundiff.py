"""Two runs of the same tasks side by side, row by row (pure functions of two DataFrames).

A run's rows are keyed by instance set, instance and configuration; rows of two runs with the
same key pair up. A pair *repeats* where both rows ran the same task (same ``fingerprint``:
models, states, limits, options) and found the same outcome: the same status and, where solved,
the same path (``actions``; the length where a row keeps no path) and the same node counts
(these also for a search that ended without a solution by itself: depth limit, node limit...).
Searches here are deterministic, so a pair that does not repeat is a change in the code, the
models or the limits (a search cut by its time limit on one machine and not on the other), and
the seconds of pairs that repeat measure the machines and builds against each other.

``pair_rows(run, other)``: one row per shared key. ``by_config(pairs)``: one row per
configuration: pairs, repeated, changed outcomes by name, and the median ratio of seconds
(``other`` over ``run``) over the repeated pairs whose searches ran to their own end
(:data:`TIMED`): a search stopped by the clock, a memory budget or a crash took as long as the
limit or the luck of the watchdog, not as long as its work.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.status import Status

#: counts that a repeated search must reproduce exactly
COUNTS = ("nodes_generated", "nodes_expanded", "network_evaluations")

#: statuses of a search that ended by its own work (its seconds measure the machine)
TIMED = frozenset({Status.SOLVED, Status.DEPTH_LIMIT, Status.BEAM_EMPTY, Status.NODE_LIMIT,
                   Status.ITERATION_LIMIT, Status.UNSOLVABLE})


def _same(a: Any, b: Any) -> bool:
    """Equal values, two missing values counting as equal."""
    a_na, b_na = bool(pd.isna(a)), bool(pd.isna(b))
    if a_na or b_na:
        return a_na and b_na
    return bool(a == b)


def _repeats(r: Any, o: Any) -> bool:
    if not _same(r["status"], o["status"]):
        return False
    if r["status"] not in TIMED:
        return True
    if r["status"] != "solved":
        return all(_same(r.get(c), o.get(c)) for c in COUNTS)
    path = "actions" if not (pd.isna(r.get("actions")) or pd.isna(o.get("actions"))) else "length"
    return all(_same(r.get(c), o.get(c)) for c in (path, *COUNTS))


def pair_rows(run: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``run`` and ``other`` paired by ``key`` (the keys both have), in ``run``'s order.

    Columns: key, config, instance_set, instance, same_task, repeats, status, other_status,
    length, other_length, nodes_generated, other_nodes_generated, time_s, other_time_s,
    other_over_run (seconds of ``other`` over ``run``, where both repeated a search that ran to
    its own end: :data:`TIMED`)."""
    for name, df in (("run", run), ("other", other)):
        if "key" not in df or "status" not in df:
            raise ValueError(f"{name}: not a run's rows (no key or status column)")
    o_by_key = other.drop_duplicates("key", keep="last").set_index("key")
    out: list[dict[str, Any]] = []
    for _, r in run.drop_duplicates("key", keep="last").iterrows():
        if r["key"] not in o_by_key.index:
            continue
        o = o_by_key.loc[r["key"]]
        same_task = _same(r.get("fingerprint"), o.get("fingerprint"))
        repeats = same_task and _repeats(r, o)
        t, ot = r.get("time_s"), o.get("time_s")
        ratio = (float(ot) / float(t) if repeats and r["status"] in TIMED
                 and not pd.isna(t) and not pd.isna(ot) and float(t) > 0 else np.nan)
        out.append({
            "key": r["key"], "config": r["config"], "instance_set": r["instance_set"],
            "instance": r["instance"], "same_task": same_task, "repeats": repeats,
            "status": r["status"], "other_status": o["status"],
            "length": r.get("length"), "other_length": o.get("length"),
            "nodes_generated": r.get("nodes_generated"),
            "other_nodes_generated": o.get("nodes_generated"),
            "time_s": t, "other_time_s": ot, "other_over_run": ratio,
        })
    return pd.DataFrame(out, columns=[
        "key", "config", "instance_set", "instance", "same_task", "repeats", "status",
        "other_status", "length", "other_length", "nodes_generated", "other_nodes_generated",
        "time_s", "other_time_s", "other_over_run"])


def by_config(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration of ``pairs`` (first-seen order): pairs, other_task (pairs whose
    tasks differ), repeated, changed ("other status -> status" counts, or "path" where both
    solved differently, "STATUS counts" where both ended unsolved by themselves with other node
    counts), median and range of ``other_over_run``."""
    rows: list[dict[str, Any]] = []
    for config, g in pairs.groupby("config", sort=False):
        changed: dict[str, int] = {}
        for _, p in g[g["same_task"] & ~g["repeats"]].iterrows():
            if p["status"] != p["other_status"]:
                name = f"{p['other_status']} -> {p['status']}"
            else:
                name = "path" if p["status"] == "solved" else f"{p['status']} counts"
            changed[name] = changed.get(name, 0) + 1
        ratios = g["other_over_run"].dropna().to_numpy(dtype=float)
        rows.append({
            "config": config, "pairs": len(g), "other_task": int((~g["same_task"]).sum()),
            "repeated": int(g["repeats"].sum()),
            "changed": ", ".join(f"{k} {v}" for k, v in changed.items()) or "-",
            "timed": len(ratios),
            "median_other_over_run": float(np.median(ratios)) if len(ratios) else np.nan,
            "min_other_over_run": float(ratios.min()) if len(ratios) else np.nan,
            "max_other_over_run": float(ratios.max()) if len(ratios) else np.nan,
        })
    return pd.DataFrame(rows, columns=[
        "config", "pairs", "other_task", "repeated", "changed", "timed",
        "median_other_over_run", "min_other_over_run", "max_other_over_run"])


def display(summary: pd.DataFrame) -> list[list[str]]:
    """Header + formatted rows of ``by_config``'s frame."""
    def x(v: float) -> str:
        return "-" if pd.isna(v) else f"{v:.2f}"

    table = [["config", "pairs", "other task", "repeated", "changed", "timed",
              "median x", "min x", "max x"]]
    for _, s in summary.iterrows():
        table.append([str(s["config"]), f"{s['pairs']:,}", f"{s['other_task']:,}",
                      f"{s['repeated']:,}", str(s["changed"]), f"{s['timed']:,}",
                      x(s["median_other_over_run"]), x(s["min_other_over_run"]),
                      x(s["max_other_over_run"])])
    return table
