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
    _check_bounds(out, opt)
    if "solver" in out and "heuristic" in out:
        by_construction = out.apply(optimal_by_construction, axis=1).astype(bool) \
            if len(out) else pd.Series(False, index=out.index)
        by_construction = _checked_claims(out, opt, by_construction)
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

    # the goal layout, "" where none is named (a column of missing values reads as floats:
    # cast to objects before any string goes in)
    goals = out["goal"].astype(object).map(lambda v: v if isinstance(v, str) else "") \
        if "goal" in out else pd.Series("", index=out.index, dtype=object)
    keys = pd.DataFrame({"puzzle": out["puzzle"], "goal": goals})[todo]
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


def _instance_keys(out: pd.DataFrame) -> pd.Series:
    return out["instance_set"].astype(str) + "\0" + out["instance"].astype(str)


def _check_bounds(out: pd.DataFrame, opt: pd.Series) -> None:
    """``InputError`` naming the first instance whose reference optimum is negative or below its
    certified lower bound, or whose certified bound is above the length a row solved it at (a
    replayed solution: the bound is wrong)."""
    from core.errors import InputError

    opt = pd.to_numeric(opt, errors="coerce").astype(float)

    bound = pd.to_numeric(out["lower_bound"], errors="coerce").astype(float) \
        if "lower_bound" in out else pd.Series(np.nan, index=out.index)
    length = pd.to_numeric(out["length"], errors="coerce").astype(float)
    solved = out["status"] == "solved"
    checks = (
        (opt.notna() & (opt < 0), lambda r, i: f"reference optimum {_n(opt.iat[i])} is negative"),
        (opt.notna() & bound.notna() & (opt < bound),
         lambda r, i: f"reference optimum {_n(opt.iat[i])} ({r['optimal_from']}) is below the "
                      f"certified lower bound {_n(bound.iat[i])} ({r.get('lower_bound_from')})"),
        (solved & length.notna() & bound.notna() & (length < bound),
         lambda r, i: f"{r.get('config')} solved it at length {_n(length.iat[i])}, below the "
                      f"certified lower bound {_n(bound.iat[i])} ({r.get('lower_bound_from')}): "
                      "the bound is wrong"),
    )
    for bad, why in checks:
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            r = out.iloc[i]
            more = f" (and {int(bad.sum()) - 1} more rows)" if bad.sum() > 1 else ""
            raise InputError(f"reference optima: {r['instance_set']}/{r['instance']}: "
                             f"{why(r, i)}{more}")


def _n(v: Any) -> str:
    return f"{float(v):g}"


def _exact_bound(out: pd.DataFrame) -> pd.Series:
    """Per row, the certified bound where the heuristic that gave it is exact (the true
    distance: the bound is the optimum), else NaN."""
    from core import registry

    if "lower_bound" not in out or "lower_bound_from" not in out:
        return pd.Series(np.nan, index=out.index)
    exact = out["lower_bound_from"].map(
        lambda n: isinstance(n, str) and registry.canonical_heuristic(n) in registry.HEURISTICS
        and bool(registry.HEURISTICS[registry.canonical_heuristic(n)].props.exact))
    bound = pd.to_numeric(out["lower_bound"], errors="coerce").astype(float)
    return bound.where(exact.astype(bool))


def _checked_claims(out: pd.DataFrame, opt: pd.Series, declared: pd.Series) -> pd.Series:
    """The rows whose optimality by construction holds up, with ``out.optimal_claim`` saying for
    each row of a configuration that declares it: ``confirmed`` (its length equals a certified
    bound or a known optimum), ``declared`` (nothing in the run confirms or contradicts it: its
    optimality rests on the declaration alone) or ``refuted``.

    A declaration is a claim, checked before a length becomes a reference: a configuration that
    solved some instance of the run at a length above another configuration's solution (every
    solved path is replayed: an upper bound on the optimum), above a known optimum, or other
    than an exact heuristic's bound is not optimal. Where a plugin declares it, none of the
    configuration's rows is a reference and the contradictions are kept in
    ``out.attrs["refuted"]`` (one line per configuration); where the project declares it (its
    declarations are tested), the contradiction is an ``InputError`` naming the instance.
    Lengths equal to a known optimum or a certified bound are ``confirmed``."""
    out["optimal_claim"] = None
    if not declared.any():
        out.attrs["refuted"] = []
        return declared
    opt = pd.to_numeric(opt, errors="coerce").astype(float)
    length = pd.to_numeric(out["length"], errors="coerce").astype(float)
    solved = (out["status"] == "solved") & length.notna()
    keys = _instance_keys(out)
    best = length.where(solved).groupby(keys).transform("min")
    best_cfg = pd.Series(out["config"].astype(str).where(solved), index=out.index)
    exact = _exact_bound(out)
    bound = pd.to_numeric(out["lower_bound"], errors="coerce").astype(float) \
        if "lower_bound" in out else pd.Series(np.nan, index=out.index)
    rows = declared & solved
    reasons: dict[str, str] = {}
    by_plugin: dict[tuple[str, str], bool] = {}
    for i in np.flatnonzero(rows.to_numpy()):
        n = length.iat[i]
        cfg = str(out["config"].iat[i])
        if cfg in reasons:  # refuted already
            continue
        where = f"{out['instance_set'].iat[i]}/{out['instance'].iat[i]}"
        pair = (str(out["solver"].iat[i]), str(out["heuristic"].iat[i]))
        if pair not in by_plugin:
            by_plugin[pair] = _plugin_declared({"solver": pair[0], "heuristic": pair[1]})
        checked = not by_plugin[pair]
        why = None
        if not math.isnan(opt.iat[i]) and n > opt.iat[i]:
            if checked:  # the project's declarations are tested: one of the two is wrong
                continue  # (_check_agreement names it)
            why = f"the reference optimum ({out['optimal_from'].iat[i]}) is {_n(opt.iat[i])}"
        elif not math.isnan(exact.iat[i]) and n != exact.iat[i]:
            why = (f"the exact bound ({out['lower_bound_from'].iat[i]}) is "
                   f"{_n(exact.iat[i])}")
        elif n > best.iat[i]:
            k = keys.iat[i]
            shorter = [c for c, m, kk in zip(best_cfg, length, keys, strict=True)
                       if kk == k and isinstance(c, str) and m == best.iat[i]]
            why = f"{shorter[0] if shorter else 'another configuration'} solved it at {_n(best.iat[i])}"
        if why is not None and checked:
            from core.errors import InputError

            raise InputError(f"reference optima: {where}: {cfg} (optimal by construction) "
                             f"found length {_n(n)}, where {why}")
        if why is not None:
            reasons[cfg] = f"{cfg} found length {_n(n)} on {where}, where {why}"
    refuted = out["config"].astype(str).isin(reasons) & declared
    confirmed = rows & ~refuted & ((length == opt) | (length == bound))
    claim = pd.Series(None, index=out.index, dtype=object)
    claim[declared] = "declared"
    claim[confirmed] = "confirmed"
    claim[refuted] = "refuted"
    out["optimal_claim"] = claim
    out.attrs["refuted"] = [reasons[c] for c in sorted(reasons)]
    return declared & ~refuted


def _plugin_declared(row: Any) -> bool:
    """Whether a row's optimality by construction rests on a plugin's declaration (its solver or
    heuristic entry comes from an installed package; the project's own declarations are checked
    by its tests)."""
    from core import registry

    s = registry.SOLVERS.get(str(row.get("solver")))
    h = registry.HEURISTICS.get(registry.canonical_heuristic(str(row.get("heuristic"))))
    return bool((s is not None and s.plugin) or (h is not None and h.plugin))


def optimality_note(df: pd.DataFrame) -> str:
    """Where optimality by construction was refuted by the run, and where it rests only on a
    configuration's declared property (its solver and heuristic as declared), per configuration
    (after ``with_reference_optima``)."""
    if "optimal_claim" not in df:
        return ""
    parts = []
    refuted = df.attrs.get("refuted") or sorted(
        str(c) for c in df.loc[df["optimal_claim"] == "refuted", "config"].unique())
    if refuted:
        parts.append("Declared optimal but refuted by this run (not optimal, and no reference): "
                     + "; ".join(refuted) + ".")
    claims = df[df["optimal_claim"].isin(["declared", "confirmed"]) & (df["status"] == "solved")]
    declared_only = []
    for cfg, g in claims.groupby("config", sort=False):
        n_declared = int((g["optimal_claim"] == "declared").sum())
        if n_declared:
            declared_only.append(f"{cfg} {n_declared} of {len(g)} solved "
                                 f"({_declaration(g.iloc[0])})")
    if declared_only:
        parts.append("Optimality resting only on a declared property (no certified bound or "
                     "known optimum confirms the length): " + "; ".join(declared_only) + ".")
    return " ".join(parts)


def _declaration(row: Any) -> str:
    """Who declares a row's configuration optimal: its solver, and its heuristic admissible."""
    from core import registry

    solver, heuristic = str(row.get("solver")), str(row.get("heuristic"))
    by = []
    s = registry.SOLVERS.get(solver)
    if s is not None:
        by.append(f"solver {solver} declared optimal" + (f" by plugin {s.plugin}" if s.plugin
                                                          else ""))
    h = registry.HEURISTICS.get(registry.canonical_heuristic(heuristic))
    if h is not None and s is not None and s.props.heuristic:
        by.append(f"heuristic {h.name} declared admissible" + (f" by plugin {h.plugin}"
                                                                 if h.plugin else ""))
    return ", ".join(by)


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
