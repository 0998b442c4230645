"""Heuristic quality: h against the true distance.

On the 8-puzzle and the 2x2x2 cube every state is evaluated against the exact distance table;
elsewhere, on the shipped instances whose optimal lengths are known (Korf's 100, the 17
hardest, Korf & Felner's 50, the vcube cubes, Lights Out via GF(2)). Reported per heuristic:
the share of states where h overestimates and by how much, the share within one move, the
mean error, and the mean h and true distance (DeepCubeA reports, for its cube network, 66.8% of
states never overestimated and 97.4% within one move).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core import registry
from core.errors import InputError
from heuristics.base import checked_values
from puzzles.base import Puzzle


def exact_distances(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray] | None:
    """Every state with its distance, ``(states (S, L), dist (S,))``, where a table exists
    (:func:`puzzles.exhaustive.all_distances`)."""
    from puzzles.exhaustive import all_distances

    return all_distances(puzzle)


def known_instances(puzzle_name: str) -> tuple[list[Puzzle], list[np.ndarray], list[np.ndarray]]:
    """Shipped instances of ``puzzle_name`` with known optima, grouped by goal layout."""
    from suites.schema import load_suite, suite_paths
    from suites.sources import load_instances

    by_goal: dict[Any, tuple[Puzzle, list[np.ndarray], list[int]]] = {}
    seen: set[tuple[str, str]] = set()
    for name in suite_paths():
        suite = load_suite(name)
        if suite.puzzle != puzzle_name:
            continue
        for spec in suite.instance_sets.values():
            if spec.optimal == "none" or spec.source == "deepcubea":
                continue
            key = (spec.path or spec.name, str(spec.goal))
            if key in seen:
                continue
            seen.add(key)
            iset = load_instances(suite, spec.name)
            puzzle, states, dists = by_goal.setdefault(
                spec.goal, (registry.get_puzzle(puzzle_name, goal=spec.goal), [], []))
            for inst in iset.instances:
                if inst.optimal is not None:
                    states.append(inst.state)
                    dists.append(inst.optimal)
    puzzles, states_out, dists_out = [], [], []
    for puzzle, states, dists in by_goal.values():
        if states:
            puzzles.append(puzzle)
            states_out.append(np.stack(states))
            dists_out.append(np.asarray(dists, dtype=np.int64))
    return puzzles, states_out, dists_out


def _evaluate(h: Any, states: np.ndarray, batch: int = 100_000) -> np.ndarray:
    out = np.empty(len(states), dtype=np.float64)
    for i in range(0, len(states), batch):
        out[i:i + batch] = checked_values(h, states[i:i + batch])
    return out


def quality_stats(h: np.ndarray, d: np.ndarray) -> dict[str, float]:
    """Summary of values ``h (S,)`` against true distances ``d (S,)``."""
    err = h - d
    over = err > 1e-9
    return {
        "states": int(len(d)),
        "never_over_pct": 100.0 * float(np.mean(~over)),
        "within_1_pct": 100.0 * float(np.mean(err <= 1 + 1e-9)),
        "over_pct": 100.0 * float(np.mean(over)),
        "mean_over": float(err[over].mean()) if over.any() else 0.0,
        "max_over": float(err.max(initial=0.0)) if len(err) else 0.0,
        "mean_error": float(err.mean()),
        "mean_abs_error": float(np.abs(err).mean()),
        "mean_h": float(h.mean()),
        "mean_distance": float(d.mean()),
    }


def evaluate(puzzle_name: str, heuristics: list[str], sample: int | None = None, seed: int = 0,
             goal: str | None = None, models: list[str] | None = None,
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(table, per_state)``: one summary row per heuristic, and up to 200,000 sampled
    ``(heuristic, distance, h)`` rows for figures.

    ``models``: learned heuristics (``davi``) are evaluated once per model (name or run
    folder), each row labelled ``davi[MODEL]``; without it they use the shipped model.
    """
    runs: list[tuple[str, str, dict[str, Any]]] = []  # (label, heuristic, kwargs)
    for name in heuristics:
        if registry.ranks_moves(name):
            raise InputError(f"HEURISTIC: {name} ranks moves and gives no distance estimate; "
                             "heuristic quality (h against the distance) does not apply to it")
        if models and registry.heuristic_entry(name).props.needs_model:
            runs += [(f"{name}[{Path(m).name or m}]", name, {"model": m}) for m in models]
        else:
            runs.append((name, name, {}))
    if models and all(not kw for _, _, kw in runs):
        raise InputError("--model: none of the heuristics is learned (e.g. add value-net)")
    puzzle = registry.get_puzzle(puzzle_name, goal=goal)
    exact = exact_distances(puzzle)
    if exact is not None:
        groups = [(puzzle, exact[0], exact[1])]
        where = "every state"
    else:
        ps, ss, ds = known_instances(puzzle_name)
        if not ps:
            raise InputError(f"PUZZLE: no exact table and no instances with known optimal lengths "
                             f"for {puzzle_name}")
        groups = list(zip(ps, ss, ds, strict=True))
        where = "instances with known optimal lengths"
    rng = np.random.default_rng(seed)
    if sample is not None:
        groups = [(p, s[idx], d[idx]) for p, s, d in groups
                  for idx in [np.sort(rng.choice(len(s), size=min(sample, len(s)), replace=False))]]
    rows, per_state = [], []
    for name, heuristic, kwargs in runs:
        hs, ds = [], []
        t0 = time.perf_counter()
        for p, states, dist in groups:
            h = registry.get_heuristic(heuristic, p, **kwargs)
            hs.append(_evaluate(h, states))
            ds.append(dist)
        seconds = time.perf_counter() - t0
        hv, dv = np.concatenate(hs), np.concatenate(ds)
        rows.append({"heuristic": name, "evaluated_on": where, **quality_stats(hv, dv),
                     "seconds": seconds})
        keep = rng.choice(len(hv), size=min(200_000, len(hv)), replace=False)
        per_state.append(pd.DataFrame({"heuristic": name, "distance": dv[keep], "h": hv[keep]}))
    return pd.DataFrame(rows), pd.concat(per_state, ignore_index=True)


COLUMNS = [("heuristic", "heuristic"), ("states", "states"), ("never_over_pct", "h <= d %"),
           ("within_1_pct", "h <= d+1 %"), ("over_pct", "overestimates %"),
           ("mean_over", "mean over"), ("max_over", "max over"), ("mean_error", "mean h-d"),
           ("mean_abs_error", "mean abs(h-d)"), ("mean_h", "mean h"), ("mean_distance", "mean d")]


def display(table: pd.DataFrame) -> list[list[str]]:
    out = [[label for _, label in COLUMNS]]
    for _, r in table.iterrows():
        cells = []
        for col, _ in COLUMNS:
            v = r[col]
            cells.append(f"{v:,}" if isinstance(v, (int, np.integer)) else
                         f"{v:.2f}" if isinstance(v, float) else str(v))
        out.append(cells)
    return out
