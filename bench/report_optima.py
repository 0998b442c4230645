"""Reference optima of a run's rows: an instance's own, a published one of the same state, or
the length an optimal-by-construction configuration of the same run solved it at; the lower
bounds of rows made before they were recorded; the notes saying where each came from."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from core.rows import REPORTED

REQUIRED = REPORTED


def with_all_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every column the aggregates read (missing ones all NaN)."""
    missing = [c for c in REQUIRED if c not in df]
    if not missing:
        return df
    return df.assign(**{c: np.nan for c in missing})


def optimal_by_construction(row: Any) -> bool:
    """Whether a row's configuration always finds an optimal solution when it solves (its
    solver's declaration, ``core.registry.optimal_by_construction``)."""
    import json

    from core import registry

    solver, heuristic = row.get("solver"), row.get("heuristic")
    if not isinstance(solver, str) or not isinstance(heuristic, str):
        return False
    try:  # solver options given (unreadable: taken as given)
        given = any(str(k).startswith("s.") for k in json.loads(row.get("params") or "{}"))
    except (TypeError, ValueError):
        given = True
    return registry.optimal_by_construction(solver, heuristic, given)


def with_reference_optima(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with ``optimal`` filled and ``optimal_from`` saying where each reference comes from.

    In order: the row's own reference (its instance set's, named by ``optimal_source``); for rows
    made before references were read, a published optimum of the same start state
    (``suites.sources.published_optima``: DeepCubeA's optimal solutions, replayed); else the
    length of an optimal-by-construction configuration that solved the same instance in this run
    (``run: CONFIG``). Where a reference comes from outside the run and an optimal-by-construction
    configuration of the run solved the instance at another length, one of the two is wrong: an
    ``InputError`` names the instance."""
    if "optimal_from" in df:  # filled already: filling again would relabel the run's optima
        return df
    out = with_all_columns(df).copy()
    opt = pd.to_numeric(out["optimal"], errors="coerce")
    named = out["optimal_source"] if "optimal_source" in out else pd.Series(None, index=out.index)
    out["optimal_from"] = [(str(n) if isinstance(n, str) and n else "instance set")
                           if known else None for n, known in zip(named, opt.notna(), strict=True)]
    _published_fill(out, opt)
    _bounds_fill(out)
    if "solver" in out and "heuristic" in out:
        by_construction = out.apply(optimal_by_construction, axis=1).astype(bool) \
            if len(out) else pd.Series(False, index=out.index)
        _check_agreement(out, opt, by_construction)
        ref = out[(out["status"] == "solved") & by_construction]
        ref = ref.assign(length=pd.to_numeric(ref["length"], errors="coerce")) \
            .dropna(subset=["length"])
        ref = ref.sort_values("config", kind="stable").drop_duplicates(["instance_set", "instance"])
        lookup = {(a, b): (float(n), c) for a, b, n, c in
                  zip(ref["instance_set"], ref["instance"], ref["length"], ref["config"],
                      strict=True)}
        for i in np.flatnonzero(opt.isna().to_numpy()):
            hit = lookup.get((out["instance_set"].iat[i], out["instance"].iat[i]))
            if hit is not None:
                opt.iat[i] = hit[0]
                out.iat[i, out.columns.get_loc("optimal_from")] = f"run: {hit[1]}"
    out["optimal"] = opt
    return out


def _published_fill(out: pd.DataFrame, opt: pd.Series) -> None:
    """Fill ``opt`` (and ``out.optimal_from``) in place from published optima of the same start
    states, for rows without a reference."""
    if "state" not in out or "puzzle" not in out or not opt.isna().any():
        return
    from suites.sources import published_optima

    goals = out["goal"] if "goal" in out else pd.Series(None, index=out.index)
    missing = opt.isna().to_numpy()
    col = out.columns.get_loc("optimal_from")
    for i in np.flatnonzero(missing):
        puzzle, state = out["puzzle"].iat[i], out["state"].iat[i]
        goal = goals.iat[i]
        if not isinstance(puzzle, str) or not isinstance(state, str):
            continue
        refs = published_optima(puzzle, goal if isinstance(goal, str) else None)
        hit = refs.get(state)
        if hit is not None:
            opt.iat[i] = float(hit[0])
            out.iat[i, col] = hit[1]


def _bounds_fill(out: pd.DataFrame) -> None:
    """Fill ``lower_bound`` and ``lower_bound_from`` in place for rows made before bounds were
    recorded (``suites.reference.bounds_for_states`` on their start states)."""
    if "state" not in out or "puzzle" not in out:
        return
    if "lower_bound" not in out:
        out["lower_bound"] = pd.array([pd.NA] * len(out), dtype="Int64")
    if "lower_bound_from" not in out:
        out["lower_bound_from"] = None
    # a CSV whose column is empty reads as floats, which refuse the bound's name
    out["lower_bound_from"] = out["lower_bound_from"].astype(object)
    bound = pd.to_numeric(out["lower_bound"], errors="coerce")
    todo = bound.isna() & out["lower_bound_from"].isna() & out["state"].map(
        lambda v: isinstance(v, str))
    if not todo.any():
        return
    from core.errors import InputError
    from suites.reference import bounds_for_states

    goals = out["goal"].where(out["goal"].map(lambda v: isinstance(v, str)), None) \
        if "goal" in out else pd.Series(None, index=out.index)
    keys = pd.DataFrame({"puzzle": out["puzzle"], "goal": goals.fillna("")})[todo]
    for (puzzle, goal), idx in keys.groupby(["puzzle", "goal"], sort=False).groups.items():
        if not isinstance(puzzle, str):
            continue
        try:
            values, name = bounds_for_states(puzzle, goal or None, out.loc[idx, "state"].tolist())
        except InputError:  # rows whose states are not the puzzle's get no bound, nothing else
            continue
        if name is None:
            continue
        bound.loc[idx] = [float(v) if v >= 0 else math.nan for v in values]
        out.loc[idx, "lower_bound_from"] = name
    out["lower_bound"] = bound.astype("Int64") if bound.notna().any() else bound


def _check_agreement(out: pd.DataFrame, opt: pd.Series, by_construction: pd.Series) -> None:
    """``InputError`` naming the first instance whose reference optimum (from outside the run)
    differs from the length an optimal-by-construction configuration solved it at."""
    length = pd.to_numeric(out["length"], errors="coerce")
    bad = (out["status"] == "solved") & by_construction & opt.notna() & length.notna() \
        & (length != opt)
    if not bad.any():
        return
    from core.errors import InputError

    i = int(np.flatnonzero(bad.to_numpy())[0])
    r = out.iloc[i]
    more = f" (and {int(bad.sum()) - 1} more)" if bad.sum() > 1 else ""
    raise InputError(f"reference optima: {r['instance_set']}/{r['instance']}: {r['config']} "
                     f"(optimal by construction) found length {int(length.iat[i])}, the "
                     f"reference ({r['optimal_from']}) says {int(opt.iat[i])}{more}")


def reference_note(df: pd.DataFrame) -> str:
    """Where the reference optima of ``with_reference_optima(df)`` came from, per instance set."""
    if "optimal_from" not in df:
        return ""
    parts = []
    for set_name, g in df.groupby("instance_set", sort=False):
        first = g.drop_duplicates("instance")
        counts = first["optimal_from"].fillna("none").value_counts()
        parts.append(f"{set_name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "Reference optima (instances): " + "; ".join(parts) + "."


def bounds_note(df: pd.DataFrame) -> str:
    """Which admissible heuristic gave the rows' lower bounds, per instance set."""
    if "lower_bound_from" not in df or not df["lower_bound_from"].notna().any():
        return ""
    parts = []
    for set_name, g in df.groupby("instance_set", sort=False):
        counts = g.drop_duplicates("instance")["lower_bound_from"].fillna("none").value_counts()
        parts.append(f"{set_name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "Lower bounds (instances; the heuristic at the start state): " + "; ".join(parts) + "."
